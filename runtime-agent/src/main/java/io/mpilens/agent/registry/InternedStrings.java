package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.INFO_MAX_CHARS;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps the registry's string table: interns the strings rows and entries name by index into
 * the root's published {@code strings} and {@code stringCount}, appended only (a string is
 * published before the count that covers it; a full table is replaced with the root's
 * generation odd). Strings the application chooses are cut and bounded in number here, so the
 * table cannot grow without end. Used under the root's lock only.
 */
final class InternedStrings {
    /** Distinct application-chosen strings interned per JVM; further ones read {@link #STRING_LIMIT_MARK}. */
    static final int BOUNDED_STRING_LIMIT = 4096;
    static final String STRING_LIMIT_MARK = "(not kept: mpilens keeps at most " + BOUNDED_STRING_LIMIT + " such strings)";

    private final HandleRegistry root;
    private final Map<String, Integer> stringIndex = new HashMap<>();
    private String lastInterned;
    private int lastInternedIndex = -1;
    private int boundedStrings;

    /**
     * Call names and class names repeat in message loops (iRecv, iSend, iRecv, ...): small
     * identity caches skip the hash lookups. The strings are constants of the woven code.
     */
    private final String[] recentCalls = new String[4];
    private final int[] recentCallIndexes = new int[4];
    private int nextRecentCall;
    private String lastClass;
    private int lastClassIndex;

    InternedStrings(HandleRegistry root) {
        this.root = root;
    }

    /** The string's index in the table, added if new; -1 for null. */
    int intern(String s) {
        if (s == null) return -1;
        if (s == lastInterned) return lastInternedIndex; // call names repeat: skip the hash lookup
        Integer idx = stringIndex.get(s);
        if (idx != null) {
            lastInterned = s;
            lastInternedIndex = idx;
            return idx;
        }
        int count = root.stringCount;
        if (count == root.strings.length) {
            root.generation++;
            root.strings = Arrays.copyOf(root.strings, count * 2);
            root.generation++;
        }
        root.strings[count] = s;
        stringIndex.put(s, count);
        Ordered.storeStoreFence();
        return root.stringCount++;
    }

    /** {@link #intern} of a binding call's name (a constant of the woven code). */
    int internCall(String s) {
        for (int i = 0; i < recentCalls.length; i++) {
            if (recentCalls[i] == s) return recentCallIndexes[i];
        }
        int idx = intern(s);
        int at = nextRecentCall++ & (recentCalls.length - 1);
        recentCalls[at] = s;
        recentCallIndexes[at] = idx;
        return idx;
    }

    /** {@link #intern} of a binding class's name (a constant of the woven code). */
    int internClass(String s) {
        if (s != lastClass) {
            lastClassIndex = intern(s);
            lastClass = s;
        }
        return lastClassIndex;
    }

    /**
     * {@link #intern} for strings the application chooses (pair keys and values, attribute texts,
     * file names): cut at {@code INFO_MAX_CHARS}, at most {@link #BOUNDED_STRING_LIMIT} distinct ones.
     */
    int internBounded(String v) {
        if (v == null) return -1;
        if (v.length() > INFO_MAX_CHARS) v = v.substring(0, INFO_MAX_CHARS - 1) + "\u2026";
        Integer known = stringIndex.get(v);
        if (known != null) return known;
        if (boundedStrings >= BOUNDED_STRING_LIMIT) return intern(STRING_LIMIT_MARK);
        boundedStrings++;
        return intern(v);
    }
}
