package io.mpilens.bench;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.Field;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.WrapperLookup;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.TargetJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * End to end: how long an mpilens snapshot of a target with 100,000 live handles takes over JDWP,
 * against what a debugger without the registry would do in the same run: read the application's
 * 100,000 request wrappers one {@code ObjectReference.getValues} at a time. Both are measured
 * alternately on the same connection, with the target running and then suspended.
 */
public final class SnapshotBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run snapshot [--java JAVA] [--rounds N] [--warmup N]",
            "                          [--handles N] [--communicators N] [--datatypes N] [--wrappers N]",
            "  --java           the target's java (default: java, the application JDK)",
            "  --rounds         measured snapshots and naive walks per target state (default 7)",
            "  --warmup         unmeasured rounds before them (default 2)",
            "  --handles        live handles in the registry (default 100000)",
            "  --communicators  of them communicators with members and a creation stack (default 100)",
            "  --datatypes      of them derived datatypes with a parent and a creation stack (default 100)",
            "  --wrappers       request wrappers of 8 fields the naive walk reads (default 100000)");
    private static final double GOAL_MS = 100;
    private static final double GOAL_SPEED_UP = 100;

    private SnapshotBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String java = args.string("--java", "java");
        int rounds = Math.max(1, args.integer("--rounds", 7));
        int warmup = args.integer("--warmup", 2);
        int handles = args.integer("--handles", 100_000);
        int communicators = args.integer("--communicators", 100);
        int datatypes = args.integer("--datatypes", 100);
        int wrappers = args.integer("--wrappers", 100_000);
        args.done();

        Workspace ws = Workspace.detect();
        List<String> targetArgs = List.of(Integer.toString(handles), Integer.toString(communicators),
                Integer.toString(datatypes), Integer.toString(wrappers));
        String loadBefore = Machine.loadAverage();
        System.out.println("starting the target (" + java + ") and filling its registry ...");
        try (TargetJvm target = TargetJvm.start(java, List.of(), ws.targetClassPath(),
                SnapshotTarget.class.getName(), targetArgs, SnapshotTarget.READY, Duration.ofSeconds(120));
             JdiTargetReader reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()),
                     Duration.ofSeconds(30))) {
            Map<String, String> held = keyValues(target.readyLine());
            int expectedHandles = Integer.parseInt(held.get("live"));
            long expectedSum = Long.parseLong(held.get("handleSum"));
            VirtualMachine vm = reader.virtualMachine();
            LongSupplier snapshot = () -> snapshot(reader, expectedHandles);
            LongSupplier naive = () -> naiveWalk(vm, wrappers, expectedSum);

            double coldSnapshot = millis(snapshot);
            double coldNaive = millis(naive);
            System.out.printf(Locale.ROOT, "cold: snapshot %.1f ms, naive walk %.0f ms; measuring %d rounds per state"
                    + " (%d warm-up) ...%n", coldSnapshot, coldNaive, rounds, warmup);
            Samples[] running = measure(snapshot, naive, warmup, rounds);
            Samples[] suspended = reader.whileSuspended(() -> measure(snapshot, naive, warmup, rounds));

            System.out.println();
            System.out.printf(Locale.ROOT, "SnapshotBench: %,d live handles in the registry (%s requests, %s"
                    + " communicators, %s datatypes, %d predefined; %s rows with side data);%n",
                    expectedHandles, num(held.get("requests")), num(held.get("communicators")),
                    num(held.get("datatypes")), SnapshotTarget.PREDEFINED, num(held.get("sideRows")));
            System.out.printf(Locale.ROOT, "naive walk: %,d request wrappers of 8 fields, object array read in chunks"
                    + " of <= %,d, one ObjectReference.getValues each%n", wrappers, TargetReader.MAX_OBJECT_ARRAY_CHUNK);
            System.out.printf(Locale.ROOT, "target: %s, JDK %s (pid %d); harness: JDK %s; %d measured rounds per state"
                    + " after %d warm-up rounds, snapshot and walk alternating%n", java, vm.version(), target.pid(),
                    Runtime.version(), rounds, warmup);
            System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after%n%n", Machine.cpus(),
                    loadBefore, Machine.loadAverage());

            ResultTable t = new ResultTable(2, "target", "measurement", "median ms", "best ms");
            t.row("cold", "mpilens snapshot, first after attach", ResultTable.ms(coldSnapshot), "-");
            t.row("cold", "naive walk, first touch of each object", ResultTable.ms(coldNaive), "-");
            rows(t, "running", running);
            rows(t, "suspended", suspended);
            System.out.print(t.render());
            System.out.println();
            verdicts("running", running);
            verdicts("suspended", suspended);

            // the Variables view's and `calls`' way from a wrapper object to its handle: one JDWP
            // read per index entry, so its cost grows with the wrappers the agent indexes. The
            // reader overlaps those reads (JdiTargetReader.fieldsOfEach); the baseline reads them one
            // by one (the SPI's default), alternating, 3 rounds each.
            Samples overlapped = new Samples();
            Samples oneByOne = new Samples();
            int entries = 0;
            TargetReader sequential = new OneByOne(reader);
            for (int round = 0; round < 3; round++) {
                long t0 = System.nanoTime();
                int a = new RegistryDecoder(sequential).wrapperIds().size();
                oneByOne.add((System.nanoTime() - t0) / 1e6);
                t0 = System.nanoTime();
                entries = new RegistryDecoder(reader).wrapperIds().size();
                overlapped.add((System.nanoTime() - t0) / 1e6);
                if (a != entries) throw new IllegalStateException("one by one " + a + " wrappers, overlapped " + entries);
            }
            double seqMs = oneByOne.median();
            double indexMs = overlapped.median();
            System.out.printf(Locale.ROOT, "%nwrapper index (RegistryDecoder.wrapperIds, running target, median of 3): %,d"
                    + " wrappers read in %.0f ms, %.1f us each; one read at a time: %.0f ms, %.1f us each; %.1fx faster"
                    + " (not a goal; it grows with --communicators and --datatypes)%n",
                    entries, indexMs, entries == 0 ? 0 : indexMs * 1000 / entries, seqMs,
                    entries == 0 ? 0 : seqMs * 1000 / entries, seqMs / indexMs);

            // with -javaagent the wrappers carry their id in a field of their own: the Variables view
            // looks up the few it shows with one read each (WrapperLookup) instead of reading the index
            Map<TargetObject, Long> index = new RegistryDecoder(reader).wrapperIds();
            Samples perLookup = new Samples();
            int looked = 0;
            for (Map.Entry<TargetObject, Long> e : index.entrySet()) {
                if (looked == 200) break;
                if (!e.getKey().typeName().endsWith("$HandleWrapper")) continue; // the predefined ones have no field
                WrapperLookup lookup = new WrapperLookup(reader); // a new suspend: nothing cached
                long t0 = System.nanoTime();
                long id = lookup.idOf(e.getKey());
                perLookup.add((System.nanoTime() - t0) / 1e3);
                if (id != e.getValue() || lookup.indexRead()) {
                    throw new IllegalStateException("wrapper id field: " + id + ", index: " + e.getValue()
                            + (lookup.indexRead() ? " (the index had to be read)" : ""));
                }
                looked++;
            }
            System.out.printf(Locale.ROOT, "wrapper id field (WrapperLookup, one wrapper after a fresh suspend): median %.0f us"
                    + " over %d wrappers, against %.0f ms for the whole index: %.0fx faster for the first lookup%n",
                    perLookup.median(), looked, indexMs, indexMs * 1000 / perLookup.median());
        }
    }

    /** A reader that reads objects' fields one at a time: the baseline of the overlapped reads. */
    private static final class OneByOne implements TargetReader {
        private final TargetReader r;

        OneByOne(TargetReader r) {
            this.r = r;
        }

        @Override public List<TargetClass> classesNamed(String name) { return r.classesNamed(name); }
        @Override public Object staticField(TargetClass type, String field) { return r.staticField(type, field); }
        @Override public Map<String, Object> fields(TargetObject o, List<String> names) { return r.fields(o, names); }
        @Override public int arrayLength(TargetObject a) { return r.arrayLength(a); }
        @Override public int[] ints(TargetObject a, int from, int count) { return r.ints(a, from, count); }
        @Override public long[] longs(TargetObject a, int from, int count) { return r.longs(a, from, count); }
        @Override public byte[] bytes(TargetObject a, int from, int count) { return r.bytes(a, from, count); }
        @Override public TargetObject[] objects(TargetObject a, int from, int count) { return r.objects(a, from, count); }
        @Override public String string(TargetObject s) { return r.string(s); }
        @Override public String describe() { return r.describe(); }
        @Override public void close() { }
    }

    /** One {@code new RegistryDecoder(reader).decode()}, as a debugger takes a snapshot. */
    private static long snapshot(JdiTargetReader reader, int expectedHandles) {
        int n = 0;
        int torn = 0;
        for (ProcessSnapshot p : new RegistryDecoder(reader).decode()) {
            n += p.handles().size();
            torn += p.tornRows();
        }
        if (n != expectedHandles || torn != 0) {
            throw new IllegalStateException("the snapshot has " + n + " handles (" + torn + " torn rows), expected "
                    + expectedHandles);
        }
        return n;
    }

    /** What a debugger without a registry does: every field of every request wrapper, one object at a time. */
    private static long naiveWalk(VirtualMachine vm, int expectedCount, long expectedSum) {
        ReferenceType holder = vm.classesByName(SnapshotTarget.class.getName()).get(0);
        ArrayReference array = (ArrayReference) holder.getValue(holder.fieldByName(SnapshotTarget.WRAPPERS_FIELD));
        int length = array.length();
        List<Field> fields = null;
        Field handle = null;
        long sum = 0;
        int count = 0;
        for (int from = 0; from < length; from += TargetReader.MAX_OBJECT_ARRAY_CHUNK) {
            for (Value v : array.getValues(from, Math.min(TargetReader.MAX_OBJECT_ARRAY_CHUNK, length - from))) {
                ObjectReference o = (ObjectReference) v;
                if (fields == null) {
                    fields = new ArrayList<>();
                    for (Field f : o.referenceType().visibleFields()) if (!f.isStatic()) fields.add(f);
                    handle = o.referenceType().fieldByName("handle");
                }
                Map<Field, Value> values = o.getValues(fields);
                sum += ((LongValue) values.get(handle)).value();
                count++;
            }
        }
        if (count != expectedCount || sum != expectedSum || (fields != null && fields.size() != 8)) {
            throw new IllegalStateException("the naive walk read " + count + " objects of "
                    + (fields == null ? 0 : fields.size()) + " fields, handle sum " + sum + "; expected "
                    + expectedCount + " objects of 8 fields, sum " + expectedSum);
        }
        return count;
    }

    /** [snapshot ms, naive walk ms]; the order within a round alternates so neither always goes first. */
    private static Samples[] measure(LongSupplier snapshot, LongSupplier naive, int warmup, int rounds) {
        Samples snap = new Samples();
        Samples walk = new Samples();
        for (int i = 0; i < warmup; i++) {
            snapshot.getAsLong();
            naive.getAsLong();
        }
        for (int i = 0; i < rounds; i++) {
            if (i % 2 == 0) {
                snap.add(millis(snapshot));
                walk.add(millis(naive));
            } else {
                walk.add(millis(naive));
                snap.add(millis(snapshot));
            }
        }
        return new Samples[] {snap, walk};
    }

    private static void rows(ResultTable t, String state, Samples[] s) {
        t.row(state, "mpilens snapshot", ResultTable.ms(s[0].median()), ResultTable.ms(s[0].min()));
        t.row(state, "naive walk", ResultTable.ms(s[1].median()), ResultTable.ms(s[1].min()));
        t.row(state, "speed-up (naive walk / snapshot)", ResultTable.speedUp(s[1].median() / s[0].median()),
                ResultTable.speedUp(s[1].min() / s[0].min()));
    }

    private static void verdicts(String state, Samples[] s) {
        double ms = s[0].median();
        double speedUp = s[1].median() / ms;
        System.out.printf(Locale.ROOT, "%-9s goal snapshot <= %.0f ms: %s (median %.1f ms); goal >= %.0fx faster"
                + " than the naive walk: %s (%.0fx)%n", state, GOAL_MS, ms <= GOAL_MS ? "MET" : "NOT MET", ms,
                GOAL_SPEED_UP, speedUp >= GOAL_SPEED_UP ? "MET" : "NOT MET", speedUp);
    }

    private static double millis(LongSupplier op) {
        long t0 = System.nanoTime();
        op.getAsLong();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static Map<String, String> keyValues(String line) {
        Map<String, String> out = new HashMap<>();
        for (String word : line.split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) out.put(word.substring(0, eq), word.substring(eq + 1));
        }
        return out;
    }

    private static String num(String n) {
        return String.format(Locale.ROOT, "%,d", Long.parseLong(n));
    }
}
