package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.OBJECT;
import static io.mpilens.headless.hprof.HprofFormat.sizeOf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The objects located so far and the prefetch policy: when a pass locates an object, what the
 * decoder is about to ask next is asked for too — everything the registry root refers to, the
 * elements of object arrays it refers to, the characters of every string, and a few levels below
 * collected instances — so that a lookup rarely costs a pass of its own. Ids asked for and not
 * seen by the end of a whole pass are absent from the dump.
 */
final class Prefetch {
    /**
     * How deep to prefetch what an object refers to: an instance's references at one less, an
     * object array's elements at one less (strings' characters always). The registry root is 2.
     */
    static final int MODE_ROOT = 2, MODE_CHILD = 1, MODE_LEAF = 0;
    /** Prefetch depth below collected instances: MPJ's comm → group → mpjdev group → ids[] → ProcessID → UUID. */
    static final int COLLECT_DEPTH = 6;

    final PendingIds pending = new PendingIds();
    private final Map<Long, HeapRecord> records = new HashMap<>();
    private final Set<Long> missing = new HashSet<>();
    /** Located before their class was known: followed once it is. */
    private final List<HeapRecord> deferred = new ArrayList<>();
    private final Map<Long, Integer> deferredModes = new HashMap<>();
    private final ClassIndex classes;
    private final DumpFile file;
    private final int idSize;
    private int pass;
    /** Set when an id is asked for; the first pass then looks in the blocks it has indexed before it may stop. */
    private boolean changed;

    Prefetch(ClassIndex classes, DumpFile file, int idSize) {
        this.classes = classes;
        this.file = file;
        this.idSize = idSize;
    }

    /** Ids asked for from now on are asked in pass {@code n}. */
    void beginPass(int n) {
        pass = n;
    }

    /** Asks for an object, to be located with what lies {@code mode} levels below it. */
    void want(long id, int mode) {
        if (id == 0 || records.containsKey(id) || missing.contains(id)) return;
        if (pending.add(id, mode, pass)) changed = true;
    }

    /** A pass located an object asked for (or collected); asks for what lies below it. */
    void found(HeapRecord r, int mode) {
        pending.remove(r.id());
        records.put(r.id(), r);
        if (!follow(r, mode)) {
            deferred.add(r);
            deferredModes.put(r.id(), mode);
        }
    }

    HeapRecord located(long id) {
        return records.get(id);
    }

    boolean isLocated(long id) {
        return records.containsKey(id);
    }

    boolean isMissing(long id) {
        return missing.contains(id);
    }

    Set<Long> locatedIds() {
        return Collections.unmodifiableSet(records.keySet());
    }

    boolean hasDeferred() {
        return !deferred.isEmpty();
    }

    /** True once after an id was asked for. */
    boolean takeChanged() {
        boolean was = changed;
        changed = false;
        return was;
    }

    /** Follows the objects located before their class was known (the classes are all known at the end of a pass). */
    void followDeferred() {
        for (HeapRecord r : new ArrayList<>(deferred)) {
            Integer m = deferredModes.remove(r.id());
            follow(r, m == null ? MODE_LEAF : m);
        }
        deferred.clear();
    }

    /** At the end of a pass over everything: what was asked for before it began and is still not seen is not in the dump. */
    void retireUnseen() {
        pending.retireBefore(pass, missing);
    }

    /** Asks for what the decoder will read next from this object; false when its class is not known yet. */
    private boolean follow(HeapRecord r, int mode) {
        switch (r.kind()) {
            case INSTANCE: {
                HprofClass c = classes.get(r.classId());
                if (c == null) return false;
                boolean string = c.name().equals("java.lang.String");
                if (!string && mode < MODE_ROOT) return true;
                List<Long> refs = new ArrayList<>();
                if (!references(r, refs, string ? "value" : null)) return false;
                for (long ref : refs) want(ref, Math.max(MODE_LEAF, mode - 1));
                return true;
            }
            case OBJECT_ARRAY:
                if (mode < MODE_CHILD) return true;
                ByteBuffer b = ByteBuffer.wrap(file.elementBytes(r, 0, (long) r.length() * idSize));
                for (int i = 0; i < r.length(); i++) want(idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong(), mode - 1);
                return true;
            default:
                return true;
        }
    }

    /** Reference fields of an instance (only {@code onlyField} if given); false when a class is unknown. */
    private boolean references(HeapRecord r, List<Long> out, String onlyField) {
        ByteBuffer b = ByteBuffer.wrap(r.data());
        long classId = r.classId();
        for (int depth = 0; classId != 0; depth++) {
            HprofClass c = classes.get(classId);
            if (c == null || depth > classes.size()) return false;
            for (HprofClass.Field f : c.fields()) {
                int size = sizeOf(f.type(), idSize);
                if (b.remaining() < size) return true; // layout mismatch: the reader reports it on access
                if (f.type() == OBJECT) {
                    long id = idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong();
                    if (onlyField == null || onlyField.equals(f.name())) out.add(id);
                } else {
                    b.position(b.position() + size);
                }
            }
            classId = c.superId();
        }
        return true;
    }
}
