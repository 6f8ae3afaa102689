package io.mpilens.bench;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.FaultModel;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.json.CollectorJson;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.testing.Snapshots;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 18's scale goal for the front end: the reports of many collectors (synthetic ranks, as
 * many per collector) parsed from their JSON lines and merged into one job model, ≤ 1 s for 16,384
 * ranks over 256 collectors and growing no faster than linearly in ranks. What is timed is what
 * the front end does once the collectors' lines are in: {@code CollectorJson.parse} of every
 * report, the ranks and snapshots put together (as {@code JobObserver} does), and
 * {@link FaultModel#observed} building the communicators, hosts and states. Each rank's snapshot is
 * shaped like a real one: COMM_WORLD (predefined, every rank of the job its member), a dup of it, a
 * derived datatype and a pending receive on the dup. Generating the lines is not timed.
 */
public final class MergeBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run merge [--ranks N,N,...] [--collectors C] [--rounds R]",
            "  --ranks       job sizes, ascending (default 1024,4096,16384)",
            "  --collectors  collectors (hosts) the ranks are spread over (default 256)",
            "  --rounds      timed merges per size; the median is reported (default 5)");
    static final double GOAL_MS = 1000;
    static final int GOAL_RANKS = 16_384;

    private MergeBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String sizes = args.string("--ranks", "1024,4096,16384");
        int collectors = Math.max(1, args.integer("--collectors", 256));
        int rounds = Math.max(1, args.integer("--rounds", 5));
        args.done();
        int[] ns = Arrays.stream(sizes.split(",")).map(String::trim).mapToInt(Integer::parseInt).sorted().toArray();
        System.out.printf(Locale.ROOT, "MergeBench: %d collectors, sizes %s, median of %d merges each; heap %,d MB; machine: %d CPUs, load %s%n%n",
                collectors, Arrays.toString(ns), rounds, Runtime.getRuntime().maxMemory() >> 20, Machine.cpus(), Machine.loadAverage());
        ResultTable t = new ResultTable(0, "ranks", "collectors", "JSON (MB)", "parse (ms)", "model (ms)", "total (ms)",
                "CPU (ms)", "ms per 1k ranks", "growth vs linear");
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        double firstPerRank = Double.NaN;
        Double atGoal = null;
        String stopped = null;
        for (int n : ns) {
            try {
                List<List<String>> lines = new ArrayList<>();
                long bytes = 0;
                for (int c = 0; c < collectors; c++) {
                    List<String> l = CollectorJson.lines(report(c, collectors, n));
                    for (String s : l) bytes += s.length();
                    lines.add(l);
                }
                Samples parse = new Samples(), model = new Samples(), total = new Samples(), cpu = new Samples();
                for (int r = 0; r < rounds + 1; r++) { // the first round warms the code up: not counted
                    long c0 = os.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    List<CollectorReport> reports = new ArrayList<>(collectors);
                    for (List<String> l : lines) reports.add(CollectorJson.parse(l));
                    long t1 = System.nanoTime();
                    JobModel m = merge(reports);
                    long t2 = System.nanoTime();
                    long c2 = os.getProcessCpuTime();
                    if (m.processes().size() != n) throw new IllegalStateException("merged " + m.processes().size() + " ranks of " + n);
                    if (r == 0) continue;
                    parse.add((t1 - t0) / 1e6);
                    model.add((t2 - t1) / 1e6);
                    total.add((t2 - t0) / 1e6);
                    cpu.add((c2 - c0) / 1e6);
                }
                double perK = total.median() / n * 1000;
                if (Double.isNaN(firstPerRank)) firstPerRank = perK;
                if (n == GOAL_RANKS) atGoal = total.median();
                t.row(String.format(Locale.ROOT, "%,d", n), collectors, String.format(Locale.ROOT, "%.1f", bytes / 1e6),
                        String.format(Locale.ROOT, "%,.1f", parse.median()), String.format(Locale.ROOT, "%,.1f", model.median()),
                        String.format(Locale.ROOT, "%,.1f", total.median()), String.format(Locale.ROOT, "%,.0f", cpu.median()),
                        String.format(Locale.ROOT, "%.2f", perK),
                        String.format(Locale.ROOT, "%.2fx", perK / firstPerRank));
            } catch (OutOfMemoryError e) {
                stopped = String.format(Locale.ROOT, "%,d ranks: out of memory (heap %,d MB)", n, Runtime.getRuntime().maxMemory() >> 20);
                break;
            }
        }
        System.out.print(t.render());
        if (stopped != null) System.out.println("stopped at " + stopped);
        System.out.println("(growth vs linear: ms per rank against the smallest size's; 1.00x is linear. CPU: the whole"
                + " process's CPU time during a merge, garbage collection included: less sensitive to a loaded machine than wall time)");
        System.out.printf(Locale.ROOT, "goal: <= %,.0f ms for %,d ranks over 256 collectors, no faster than linear; %s%n", GOAL_MS, GOAL_RANKS,
                atGoal == null ? "not measured (run with --ranks ...,16384 --collectors 256)"
                        : String.format(Locale.ROOT, "%,.0f ms -> %s", atGoal, atGoal <= GOAL_MS ? "MET (time)" : "NOT MET"));
    }

    /** What the front end does with the reports: every rank and its snapshot, then the one job model. */
    static JobModel merge(List<CollectorReport> reports) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (CollectorReport r : reports) {
            ranks.addAll(r.ranks());
            for (RankStatus x : r.ranks()) if (x.snapshot() != null) views.put(x.rank(), x.snapshot());
        }
        return FaultModel.observed("bench", Instant.EPOCH, ranks, views, List.of(), null, null, null);
    }

    /** Collector {@code c} of {@code collectors}: its share of the job's {@code n} ranks (round robin by block). */
    static CollectorReport report(int c, int collectors, int n) {
        String host = "node" + c;
        List<RankStatus> ranks = new ArrayList<>();
        int[] all = new int[n];
        for (int i = 0; i < n; i++) all[i] = i;
        int per = (n + collectors - 1) / collectors;
        for (int rank = c * per; rank < Math.min(n, (c + 1) * per); rank++) {
            ranks.add(new RankStatus(rank, 0, 10_000 + rank, 9_000 + c, host, "127.0.0.1:" + (40_000 + rank % 20_000),
                    ProcessState.OK, "answered", 5, snapshot(rank, n, host, all)));
        }
        return new CollectorReport(host, "bench", List.of(), ranks, List.of(), List.of());
    }

    static ProcessSnapshot snapshot(int rank, int n, String host, int[] all) {
        HandleInfo world = HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(rank).name("MPI_COMM_WORLD")
                .predefined(true).bindingClass("mpi.Intracomm").rank(rank).size(n).members(all).build();
        HandleInfo dup = HandleInfo.builder(17, HandleKind.COMMUNICATOR).ownerRank(rank).bindingClass("mpi.Intracomm")
                .creatingCall("dup").derivedFrom(1).rank(rank).size(n).members(all).build();
        HandleInfo type = HandleInfo.builder(18, HandleKind.DATATYPE).ownerRank(rank).bindingClass("mpi.Datatype")
                .creatingCall("createVector").build();
        HandleInfo recv = HandleInfo.builder(19, HandleKind.REQUEST).ownerRank(rank).bindingClass("mpi.Request")
                .creatingCall("iRecv").peer((rank + 1) % n).tag(7).communicator(17).build();
        return new ProcessSnapshot(rank, n, 10_000 + rank, host, "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(world, dup, type, recv), List.of(), 0);
    }
}
