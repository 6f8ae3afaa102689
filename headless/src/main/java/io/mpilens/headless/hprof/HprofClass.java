package io.mpilens.headless.hprof;

import java.util.List;
import java.util.Map;

/**
 * One CLASS_DUMP of a heap dump: its own instance fields in dump order (values of an instance
 * are laid out own class first, then each superclass) and its static field values.
 */
record HprofClass(long id, String name, long superId, long loaderId, List<Field> fields, Map<String, Object> statics) {
    /** An instance field: name and HPROF basic type. */
    record Field(String name, int type) {
    }

    /** Bytes this class's own fields take in an instance record. */
    int ownBytes(int idSize) {
        int n = 0;
        for (Field f : fields) n += HprofFormat.sizeOf(f.type(), idSize);
        return n;
    }
}
