package io.mpilens.bench;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.time.Duration;
import java.util.Locale;

/**
 * End to end: what the agent adds to a job's start. A job that does almost nothing (the {@code
 * MessageRate} example with one message: MPI_Init, one exchange, MPI_Finalize) is launched
 * without and with the agent, alternating, and timed from launch to the job's exit. All ranks
 * start at once, so with more ranks than CPUs the added time is CPU the ranks compete for.
 */
public final class StartupBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run startup [--binding openmpi|mpj] [--np N] [--pairs N] [--java JAVA] [--agent-options OPTS]",
            "  --binding  openmpi (default: mpirun, one JVM per rank) or mpj (MPJ Express multicore: one JVM)",
            "  --np       ranks (default 1)",
            "  --pairs    launches per side, alternating without/with the agent (default 7)",
            "  --java     the ranks' java (default: java, the application JDK)",
            "  --agent-options  more agent options, e.g. wovenCache=false (weave in every JVM, as before the cache)");
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private StartupBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String b = args.string("--binding", "openmpi");
        int np = Math.max(1, args.integer("--np", 1));
        int pairs = Math.max(1, args.integer("--pairs", 7));
        String java = args.string("--java", "java");
        String more = args.string("--agent-options", "");
        args.done();
        String options = MessageRateBench.AGENT_OPTIONS + (more.isBlank() ? "" : "," + more);
        Binding binding = b.equals("mpj") ? Binding.MPJ_MULTICORE : Binding.OPENMPI;
        if (!b.equals("mpj") && !b.equals("openmpi")) {
            System.err.println("unknown binding '" + b + "'\n" + USAGE);
            System.exit(2);
        }
        Workspace ws = Workspace.detect();
        String loadBefore = Machine.loadAverage();
        Samples without = new Samples();
        Samples with = new Samples();
        for (int i = 0; i < pairs; i++) {
            boolean agentFirst = i % 2 == 1;
            for (boolean agent : new boolean[] {agentFirst, !agentFirst}) {
                double ms = launch(ws, binding, np, java, agent, options);
                (agent ? with : without).add(ms);
                System.out.printf(Locale.ROOT, "launch %d/%d %-13s %,8.0f ms%n", i + 1, pairs,
                        agent ? "with agent" : "without agent", ms);
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "StartupBench: %s, %d rank%s, MessageRate %s 1 message: launch to exit;"
                + " median over %d launches per side, alternating%n", binding == Binding.OPENMPI ? "Open MPI (mpirun)"
                : "MPJ Express multicore", np, np == 1 ? "" : "s", np == 1 ? "self" : "pair", pairs);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; agent %s with options '%s'%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), ws.agentJar().getFileName(), options);
        ResultTable t = new ResultTable(1, "np", "without agent ms", "spread", "with agent ms", "spread", "ratio",
                "ms added", "per rank");
        double added = with.median() - without.median();
        t.row(np, String.format(Locale.ROOT, "%,.0f", without.median()), ResultTable.percent(without.spread()),
                String.format(Locale.ROOT, "%,.0f", with.median()), ResultTable.percent(with.spread()),
                ResultTable.ratio(with.median() / without.median()), String.format(Locale.ROOT, "%,.0f", added),
                String.format(Locale.ROOT, "%,.0f", added / np));
        System.out.print(t.render());
        System.out.println("(per rank: the added time over the ranks; on fewer CPUs than ranks it is CPU they share)");
    }

    private static double launch(Workspace ws, Binding binding, int np, String java, boolean agent, String options)
            throws Exception {
        JobSpec.Builder spec = JobSpec.builder(binding, np, binding == Binding.OPENMPI
                        ? MessageRateBench.MAIN_CLASS : MessageRateBench.MPJ_MAIN_CLASS)
                .classPath(binding == Binding.OPENMPI ? ws.openMpiExampleClassPath() : ws.mpjExampleClassPath())
                .appArgs(np == 1 ? "self" : "pair", "1", "1").javaExecutable(java);
        if (agent) spec.agentJar(ws.agentJar()).agentOptions(options);
        long t0 = System.nanoTime();
        try (Job job = Job.launch(spec.build())) {
            int exit = job.waitFor(TIMEOUT);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (exit != 0) throw new IllegalStateException("the job exited with " + exit + ":\n" + job.tail());
            long active = job.output().stream().filter(l -> l.contains("mpilens: agent ") && l.contains(" watching ")).count();
            if (active != (agent ? (binding == Binding.OPENMPI ? np : 1) : 0)) {
                throw new IllegalStateException("the agent was active in " + active + " JVMs of a launch "
                        + (agent ? "with" : "without") + " it:\n" + job.tail());
            }
            return ms;
        }
    }
}
