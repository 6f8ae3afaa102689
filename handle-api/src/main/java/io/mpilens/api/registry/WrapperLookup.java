package io.mpilens.api.registry;

import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.util.Map;

/**
 * From an application's wrapper object to its handle's registry id, the cheap way first: the
 * id the wrapper carries in its own field ({@link RegistryDecoder#wrapperIdField}, one read),
 * else the wrapper index ({@link RegistryDecoder#wrapperIds}, read once on first need: one read
 * per indexed wrapper). For one moment of one JVM (a suspend, a snapshot); not thread-safe.
 */
public final class WrapperLookup {
    private final RegistryDecoder decoder;
    private Map<TargetObject, Long> index;

    public WrapperLookup(TargetReader reader) {
        this.decoder = new RegistryDecoder(reader);
    }

    /** The wrapper's handle id, or 0 when the registry does not know it. */
    public long idOf(TargetObject wrapper) {
        if (wrapper == null) return 0;
        long id = decoder.wrapperIdField(wrapper);
        if (id >= 0) return id;
        if (index == null) index = decoder.wrapperIds();
        Long fromIndex = index.get(wrapper);
        return fromIndex == null ? 0 : fromIndex;
    }

    /** Whether the whole wrapper index had to be read (for tests and measurements). */
    public boolean indexRead() {
        return index != null;
    }
}
