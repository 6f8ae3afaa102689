package io.mpilens.bench;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.target.TargetClass;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.TargetJvm;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What reading requests from their wrappers costs a live snapshot: the same rank once with the
 * registry alone (today's snapshot: requests in tables, none here) and once with N pending
 * requests in their wrappers (a heap walk for the request class, then one field read per
 * wrapper), snapshots over JDI, medians; and the heap walk alone (JDWP's instance list of the
 * request class) in a target whose heap holds M megabytes of small objects.
 */
public final class RequestReadBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run requests [--java JAVA] [--pending N] [--rounds N] [--heap-mb M]",
            "  --java     the targets' java (default: java, the application JDK)",
            "  --pending  pending requests in wrappers (default 10000)",
            "  --rounds   measured snapshots per target (default 7, after 2 unmeasured)",
            "  --heap-mb  filler of the heap-walk target, in MB of 64-byte objects (default 4096; 0: skip it)");
    static final double GOAL_MS = 100;

    private RequestReadBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String java = args.string("--java", "java");
        int pending = args.integer("--pending", 10_000);
        int rounds = Math.max(1, args.integer("--rounds", 7));
        long heapMb = args.integer("--heap-mb", 4096);
        args.done();
        Workspace ws = Workspace.detect();
        String loadBefore = Machine.loadAverage();
        Samples today = snapshots(ws, java, -1, rounds, 0, true)[0];
        Samples[] wrappedLooks = snapshots(ws, java, pending, rounds, pending, false);
        Samples wrapped = wrappedLooks[0], repeated = wrappedLooks[1];
        Samples walk = heapMb > 0 ? heapWalk(ws, java, heapMb, Math.max(3, rounds / 2)) : null;

        System.out.println();
        System.out.printf(Locale.ROOT, "RequestReadBench: one rank, live over JDI; %,d pending requests in their wrappers"
                + " against the same registry without them; medians of %d snapshots after 2 unmeasured%n", pending, rounds);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; targets on %s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), java);
        ResultTable t = new ResultTable(1, "measurement", "median ms", "best ms");
        t.row("snapshot, registry only (today's)", ResultTable.ms(today.median()), ResultTable.ms(today.min()));
        t.row(String.format(Locale.ROOT, "snapshot with %,d requests in wrappers, first look", pending),
                ResultTable.ms(wrapped.median()), ResultTable.ms(wrapped.min()));
        t.row(String.format(Locale.ROOT, "the same, again (no request created since: no walk)", pending),
                ResultTable.ms(repeated.median()), ResultTable.ms(repeated.min()));
        if (walk != null) {
            t.row(String.format(Locale.ROOT, "heap walk alone, %,d MB of 64-byte objects", heapMb),
                    ResultTable.ms(walk.median()), ResultTable.ms(walk.min()));
        }
        System.out.print(t.render());
        double added = wrapped.median() - today.median();
        System.out.printf(Locale.ROOT, "added by %,d requests in wrappers: %+.1f ms (ratio %.2f); goal <= +%.0f ms -> %s%n",
                pending, added, wrapped.median() / today.median(), GOAL_MS, added <= GOAL_MS ? "MET" : "NOT MET");
        if (walk != null) {
            System.out.printf(Locale.ROOT, "heap walk on %,d MB: %.0f ms; goal <= 1000 ms -> %s%n", heapMb, walk.median(),
                    walk.median() <= 1000 ? "MET" : "NOT MET");
        }
    }

    /**
     * Snapshot times of a target with {@code pending} requests in wrappers (-1: the registry says
     * none): first looks (the reader's last walk forgotten before each) and, unless {@code onlyFirst},
     * repeated looks (nothing was created since the last walk: the requests found are read again).
     */
    private static Samples[] snapshots(Workspace ws, String java, int pending, int rounds, int expected,
                                       boolean onlyFirst) throws Exception {
        try (TargetJvm target = TargetJvm.start(java, List.of(), List.of(ws.benchClasses(), ws.agentJar()),
                WrappedRequestTarget.class.getName(), List.of(Integer.toString(pending), "0"),
                WrappedRequestTarget.READY, Duration.ofSeconds(120));
             JdiTargetReader reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()),
                     Duration.ofSeconds(30))) {
            Samples first = new Samples(), again = new Samples();
            for (int i = 0; i < rounds + 2; i++) {
                for (boolean forget : onlyFirst ? new boolean[] {true} : new boolean[] {true, false}) {
                    if (forget) RegistryDecoder.forgetWalks();
                    long t0 = System.nanoTime();
                    List<ProcessSnapshot> snap = new RegistryDecoder(reader).decode();
                    double ms = (System.nanoTime() - t0) / 1e6;
                    long requests = snap.get(0).handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).count();
                    if (requests != expected) {
                        throw new IllegalStateException("the snapshot shows " + requests + " requests, the target holds " + expected);
                    }
                    if (i >= 2) (forget ? first : again).add(ms);
                }
            }
            System.out.printf(Locale.ROOT, "target with %s: snapshot median %.1f ms%s%n",
                    pending < 0 ? "the registry only" : pending + " requests in wrappers", first.median(),
                    onlyFirst ? "" : String.format(Locale.ROOT, " (first look), %.1f ms again", again.median()));
            return new Samples[] {first, again};
        }
    }

    /** Median time of JDWP's instance list of the request class in a heap of {@code mb} MB of small objects. */
    private static Samples heapWalk(Workspace ws, String java, long mb, int rounds) throws Exception {
        String xmx = "-Xmx" + (mb + mb / 2 + 512) + "m";
        System.out.println("starting the heap-walk target (" + mb + " MB of 64-byte objects, " + xmx + ") ...");
        try (TargetJvm target = TargetJvm.start(java, List.of(xmx), List.of(ws.benchClasses(), ws.agentJar()),
                WrappedRequestTarget.class.getName(), List.of("10", Long.toString(mb)),
                WrappedRequestTarget.READY, Duration.ofMinutes(10));
             JdiTargetReader reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()),
                     Duration.ofSeconds(30))) {
            List<TargetClass> types = reader.classesNamed(WrappedRequestTarget.Request.class.getName());
            Samples s = new Samples();
            for (int i = 0; i < rounds + 1; i++) {
                long t0 = System.nanoTime();
                int n = reader.instancesOf(types, 1_000_000).of(types.get(0)).size();
                double ms = (System.nanoTime() - t0) / 1e6;
                if (n != 10) throw new IllegalStateException("the heap walk found " + n + " requests, the target holds 10");
                if (i >= 1) s.add(ms);
            }
            System.out.printf(Locale.ROOT, "heap walk: median %.0f ms%n", s.median());
            return s;
        }
    }
}
