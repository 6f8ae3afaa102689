package io.mpilens.bench;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.TargetJvm;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What reading requests from the request ring costs a live snapshot: the same rank once with the
 * registry alone (no request ever created: no ring) and once with N pending requests in their
 * wrappers and the ring, snapshots over JDI, medians; and the same snapshot (10 pending requests)
 * in a target whose heap holds M megabytes of small objects: reading the ring does not walk the heap.
 */
public final class RequestReadBench {
    /** Unmeasured snapshots per target first: the decoder of 10,000 requests runs interpreted at first. */
    static final int WARMUP = 10;
    static final String USAGE = String.join("\n",
            "usage: bench/run requests [--java JAVA] [--pending N] [--rounds N] [--heap-mb M]",
            "  --java     the targets' java (default: java, the application JDK)",
            "  --pending  pending requests in wrappers (default 10000)",
            "  --rounds   measured snapshots per target (default 15, after " + WARMUP + " unmeasured: the harness's decoder warms up)",
            "  --heap-mb  filler of the big-heap target, in MB of 64-byte objects (default 4096; 0: skip it)");
    static final double GOAL_MS = 100;

    private RequestReadBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String java = args.string("--java", "java");
        int pending = args.integer("--pending", 10_000);
        int rounds = Math.max(1, args.integer("--rounds", 15));
        long heapMb = args.integer("--heap-mb", 4096);
        args.done();
        Workspace ws = Workspace.detect();
        String loadBefore = Machine.loadAverage();
        Samples today = snapshots(ws, java, List.of(), -1, 0, rounds, 0);
        Samples ring = snapshots(ws, java, List.of(), pending, 0, rounds, pending);
        Samples small = heapMb > 0 ? snapshots(ws, java, List.of(), 10, 0, rounds, 10) : null;
        Samples big = heapMb > 0 ? snapshots(ws, java, List.of("-Xmx" + (heapMb + heapMb / 2 + 512) + "m"), 10, heapMb,
                rounds, 10) : null;

        System.out.println();
        System.out.printf(Locale.ROOT, "RequestReadBench: one rank, live over JDI; %,d pending requests in their wrappers"
                + " and the request ring against the same registry without them; medians of %d snapshots after %d unmeasured%n",
                pending, rounds, WARMUP);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; targets on %s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), java);
        ResultTable t = new ResultTable(1, "measurement", "median ms", "best ms");
        t.row("snapshot, registry only (no request ever created)", ResultTable.ms(today.median()), ResultTable.ms(today.min()));
        t.row(String.format(Locale.ROOT, "snapshot with %,d pending requests in the ring", pending),
                ResultTable.ms(ring.median()), ResultTable.ms(ring.min()));
        if (big != null) {
            t.row("snapshot with 10 pending requests, small heap", ResultTable.ms(small.median()), ResultTable.ms(small.min()));
            t.row(String.format(Locale.ROOT, "the same, heap with %,d MB of 64-byte objects", heapMb),
                    ResultTable.ms(big.median()), ResultTable.ms(big.min()));
        }
        System.out.print(t.render());
        double added = ring.median() - today.median();
        System.out.printf(Locale.ROOT, "added by %,d pending requests: %+.1f ms (ratio %.2f); goal <= +%.0f ms -> %s%n",
                pending, added, ring.median() / today.median(), GOAL_MS, added <= GOAL_MS ? "MET" : "NOT MET");
        if (big != null) {
            double heapCost = big.median() - small.median();
            System.out.printf(Locale.ROOT, "added by a %,d MB heap: %+.1f ms (no heap walk); goal <= 1000 ms -> %s%n", heapMb,
                    heapCost, heapCost <= 1000 ? "MET" : "NOT MET");
        }
    }

    /** Snapshot times of a target with {@code pending} requests in wrappers (-1: none ever created) and {@code fillerMb} of filler. */
    private static Samples snapshots(Workspace ws, String java, List<String> jvmOptions, int pending, long fillerMb,
                                     int rounds, int expected) throws Exception {
        if (fillerMb > 0) System.out.println("starting a target with " + fillerMb + " MB of 64-byte objects ...");
        try (TargetJvm target = TargetJvm.start(java, jvmOptions, ws.targetClassPath(),
                WrappedRequestTarget.class.getName(), List.of(Integer.toString(pending), Long.toString(fillerMb)),
                WrappedRequestTarget.READY, Duration.ofMinutes(10));
             JdiTargetReader reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()),
                     Duration.ofSeconds(30))) {
            Samples s = new Samples();
            for (int i = 0; i < rounds + WARMUP; i++) {
                long t0 = System.nanoTime();
                List<ProcessSnapshot> snap = new RegistryDecoder(reader).decode();
                double ms = (System.nanoTime() - t0) / 1e6;
                long requests = snap.get(0).handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).count();
                if (requests != expected) {
                    throw new IllegalStateException("the snapshot shows " + requests + " requests, the target holds " + expected);
                }
                if (i >= WARMUP) s.add(ms);
            }
            System.out.printf(Locale.ROOT, "target with %s%s: snapshot median %.1f ms%n",
                    pending < 0 ? "the registry only" : pending + " pending requests",
                    fillerMb > 0 ? ", " + fillerMb + " MB filler" : "", s.median());
            return s;
        }
    }
}
