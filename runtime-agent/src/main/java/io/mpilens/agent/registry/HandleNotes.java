package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.INFO_MAX_PAIRS;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the application set on its handles, as the agent saw the calls' arguments: each info's
 * pairs (in the order keys were first set) and the attributes cached on a handle, by registry
 * id, turned into the side-record sections the registry publishes. Their strings are interned
 * cut and bounded ({@link InternedStrings#internBounded}).
 * Used by {@link HandleRegistry} under its lock only.
 */
final class HandleNotes {
    private final InternedStrings strings;
    private final Map<Long, LinkedHashMap<String, String>> infoPairs = new HashMap<>();
    private final Map<Long, TreeMap<Integer, String>> attributes = new HashMap<>();

    HandleNotes(InternedStrings strings) {
        this.strings = strings;
    }

    /** A dup: the copy starts with the original's pairs. The copy's section, or null when the original had none. */
    long[] copyPairs(long fromId, long toId) {
        LinkedHashMap<String, String> src = infoPairs.get(fromId);
        if (src == null || src.isEmpty()) return null;
        LinkedHashMap<String, String> copy = new LinkedHashMap<>(src);
        infoPairs.put(toId, copy);
        return pairSection(copy);
    }

    /** An info's pairs now (none set: an empty section). */
    long[] pairSection(long infoId) {
        LinkedHashMap<String, String> pairs = infoPairs.get(infoId);
        return pairSection(pairs == null ? new LinkedHashMap<>() : pairs);
    }

    /** A set or delete; the info's new section. */
    long[] infoChanged(long infoId, String key, String value, boolean set) {
        LinkedHashMap<String, String> pairs = infoPairs.get(infoId);
        if (pairs == null) infoPairs.put(infoId, pairs = new LinkedHashMap<>());
        if (set) pairs.put(key, value == null ? "" : value);
        else pairs.remove(key);
        return pairSection(pairs);
    }

    /** {@code text} null: deleted. The handle's new attributes section, null when it has none left. */
    long[] attributeChanged(long id, int keyval, String text) {
        TreeMap<Integer, String> attrs = attributes.get(id);
        if (attrs == null) attributes.put(id, attrs = new TreeMap<>());
        if (text != null) attrs.put(keyval, text);
        else attrs.remove(keyval);
        if (attrs.isEmpty()) return null;
        int kept = Math.min(attrs.size(), INFO_MAX_PAIRS);
        long[] values = new long[2 * kept];
        int at = 0;
        for (Map.Entry<Integer, String> e : attrs.entrySet()) {
            if (at >= values.length) break;
            values[at++] = e.getKey();
            values[at++] = strings.internBounded(e.getValue());
        }
        return values;
    }

    /** The handle is gone: forget what was set on it. */
    void released(long id) {
        infoPairs.remove(id);
        attributes.remove(id);
    }

    /** {@code [count, k1, v1, ...]}: the first {@code INFO_MAX_PAIRS} pairs as strings. */
    private long[] pairSection(LinkedHashMap<String, String> pairs) {
        int kept = Math.min(pairs.size(), INFO_MAX_PAIRS);
        long[] out = new long[1 + 2 * kept];
        out[0] = pairs.size();
        int at = 1;
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            if (at >= out.length) break;
            out[at++] = strings.internBounded(e.getKey());
            out[at++] = strings.internBounded(e.getValue());
        }
        return out;
    }
}
