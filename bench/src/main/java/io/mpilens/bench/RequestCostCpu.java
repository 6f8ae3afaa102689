package io.mpilens.bench;

import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RequestRouting;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * The question of {@link RequestRegistryBench} (what does the registry add to creating and
 * completing one request with a native handle?) measured in <em>thread CPU time</em>, baseline
 * and registry loops alternating. On a shared, loaded machine JMH's wall-clock times include
 * the time other processes had the core; CPU time does not (caches and a busy sibling
 * hyperthread still show). Runs on the application JDK: {@code bench/run request-cpu}.
 */
public final class RequestCostCpu {
    private static final String USAGE = "usage: bench/run request-cpu [--rounds N] [--requests N]\n"
            + "  --rounds    alternating baseline/registry rounds after 3 warm-up rounds (default 9)\n"
            + "  --requests  requests created and completed per round (default 20000000)";

    /** Stands in for the binding's Request wrapper, as in RequestRegistryBench. */
    static final class Request {
        long handle;
    }

    /** Plain, not volatile: a volatile store would add a fence to both loops. The wrapper escapes here. */
    static Object sink;

    private RequestCostCpu() {
    }

    public static void main(String[] argv) {
        Args args = new Args(argv, USAGE);
        int rounds = args.integer("--rounds", 9);
        int n = args.integer("--requests", 20_000_000);
        args.done();
        HandleRegistry registry = HandleRegistry.INSTANCE;
        int proc = registry.process(RequestCostCpu.class.getClassLoader());
        registry.processInitialized(proc, 0, 1);
        Object comm = new Object();
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = proc;
        s.name = "bench-comm";
        registry.add(comm, s);
        RequestRouting requests = registry.requests(); // what the interceptor calls (its static final REQUESTS)
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        String loadBefore = Machine.loadAverage();
        Samples base = new Samples();
        Samples with = new Samples();
        Samples added = new Samples();
        long handle = 0x7f00_0000_0000L;
        for (int round = -3; round < rounds; round++) {
            long t0 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                Request r = new Request();
                r.handle = handle += 64;
                sink = r;
            }
            long t1 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                Request r = new Request();
                r.handle = handle += 64;
                requests.addRequest(r, r.handle, proc, "mpi.Request", "iSend", 1, 7, comm, false);
                requests.requestCompleted(r, r.handle);
                sink = r;
            }
            long t2 = cpu.getCurrentThreadCpuTime();
            if (round < 0) continue;
            double b = (t1 - t0) / (double) n;
            double w = (t2 - t1) / (double) n;
            base.add(b);
            with.add(w);
            added.add(w - b);
        }
        System.out.println("RequestCostCpu: create + complete of one request keyed by native handle, thread CPU time,");
        System.out.println(String.format(Locale.ROOT, "%d rounds of %,d requests after 3 warm-up rounds; JDK %s; "
                + "%d CPUs, 1-minute load average %s before, %s after", rounds, n, Runtime.version(), Machine.cpus(),
                loadBefore, Machine.loadAverage()));
        System.out.println(String.format(Locale.ROOT, "baseline (wrapper only)  median %6.2f ns  best %6.2f ns",
                base.median(), base.min()));
        System.out.println(String.format(Locale.ROOT, "with registry            median %6.2f ns  best %6.2f ns",
                with.median(), with.min()));
        System.out.println(String.format(Locale.ROOT, "added per request        median %6.2f ns  (%.2f .. %.2f)",
                added.median(), added.min(), added.max()));
        System.out.println("goal <= 5 ns added: " + (added.median() <= 5 ? "MET" : "NOT MET")
                + String.format(Locale.ROOT, " (median %.2f ns)", added.median()));
    }
}
