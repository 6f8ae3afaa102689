package io.mpilens.headless.hprof;

import io.mpilens.api.registry.RegistryLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The classes of a dump, as the first pass finds them: names from the class records, layouts and
 * static values from the class dumps, ids by name, and the registry root read from its class's
 * static field.
 */
final class ClassIndex {
    private final Map<Long, String> loadedNames = new HashMap<>();
    private final Map<Long, HprofClass> byId = new HashMap<>();
    private final Map<String, List<Long>> idsByName = new HashMap<>();
    private long registryRoot;

    /** A class record: class {@code id} is named {@code binaryName} (slashes, as HPROF spells it). */
    void loaded(long id, String binaryName) {
        loadedNames.put(id, binaryName.replace('/', '.'));
    }

    /** The name a class dump of {@code id} gets: its class record's, or a placeholder. */
    String nameOf(long id) {
        return loadedNames.getOrDefault(id, "class@0x" + Long.toHexString(id));
    }

    /** Adds a class dump; returns the registry root when this is the registry's class and holds one, else 0. */
    long add(HprofClass c) {
        byId.put(c.id(), c);
        idsByName.computeIfAbsent(c.name(), k -> new ArrayList<>()).add(c.id());
        if (c.name().equals(RegistryLayout.ROOT_CLASS)
                && c.statics().get(RegistryLayout.ROOT_FIELD) instanceof HprofRecordReader.ObjectId) {
            registryRoot = ((HprofRecordReader.ObjectId) c.statics().get(RegistryLayout.ROOT_FIELD)).id();
            return registryRoot;
        }
        return 0;
    }

    HprofClass get(long id) {
        return byId.get(id);
    }

    int size() {
        return byId.size();
    }

    Collection<HprofClass> values() {
        return byId.values();
    }

    List<Long> idsNamed(String name) {
        return idsByName.getOrDefault(name, List.of());
    }

    /** The registry root's object id, 0 while its class has not been seen. */
    long registryRoot() {
        return registryRoot;
    }
}
