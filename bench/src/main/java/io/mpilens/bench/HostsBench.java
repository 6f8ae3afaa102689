package io.mpilens.bench;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 18's goal for jobs across hosts: {@code calls} and {@code cominfo} of a 64-rank job over 8
 * (simulated) hosts within 1.5x the time of the same job on one host. One side runs the job on
 * this machine and the commands read every rank here; the other runs it over {@code scripts/simhosts}
 * hosts (root only) through the ssh stand-in, and the commands start a collector on each host
 * ({@code --hosts}), which reads that host's ranks and sends their snapshots (and, for calls,
 * their frames) back. The job: {@code HangAfterFailure} paused at 'ready' (every rank alive, the
 * agent and JDWP on each). The sides run one after the other (two 64-rank jobs at once would not
 * fit), the commands alternate within a side; the front end runs in this JVM both times.
 */
public final class HostsBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run hosts [--np N] [--hosts H] [--rounds R] [--heap SIZE] [--timeout S]",
            "  --np      ranks (default 64)",
            "  --hosts   simulated hosts for the second side (default 8; np must be a multiple)",
            "  --rounds  timed runs of each command per side (default 3; one warm-up run first)",
            "  --heap    -Xmx of each rank (default 48m)",
            "  --timeout the commands' --timeout, seconds (default 30: on a small machine 64 rank JVMs and 8",
            "            collectors share the CPUs; a run that still misses a rank is counted apart, not timed)");
    private static final String MAIN_CLASS = "io.mpilens.examples.openmpi.HangAfterFailure";
    private static final Duration START = Duration.ofMinutes(8);
    private static final double GOAL_RATIO = 1.5;
    private static final List<String> COMMANDS = List.of("calls", "cominfo");
    /** Runs that did not read every rank, by side and command. */
    private static final Map<String, Integer> incomplete = new LinkedHashMap<>();

    private HostsBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        int np = Math.max(2, args.integer("--np", 64));
        int hostCount = Math.max(2, args.integer("--hosts", 8));
        int rounds = Math.max(1, args.integer("--rounds", 3));
        String heap = args.string("--heap", "48m");
        String timeout = Integer.toString(Math.max(1, args.integer("--timeout", 30)));
        args.done();
        if (np % hostCount != 0) throw new IllegalArgumentException("--np " + np + " is not a multiple of --hosts " + hostCount);
        Workspace ws = Workspace.detect();
        Path simhosts = ws.root.resolve("scripts/simhosts");
        Path cli = ws.root.resolve("headless/target/mpilens-cli.jar");
        if (!"root".equals(System.getProperty("user.name")) || !Files.isExecutable(Path.of("/usr/bin/unshare"))) {
            System.err.println("bench/run hosts: simulated hosts need root and unshare (scripts/simhosts); run it as root");
            System.exit(1);
        }
        // the collectors run what a user's do by default: the mpilens script of this checkout
        if (!Files.isRegularFile(cli)) throw new IllegalStateException(cli + " is missing: build headless (package phase) first");
        Path work = Files.createDirectories(ws.root.resolve("bench/target/hosts-" + ProcessHandle.current().pid()));
        String loadBefore = Machine.loadAverage();

        Map<String, Samples> oneHost = new LinkedHashMap<>();
        Map<String, Samples> manyHosts = new LinkedHashMap<>();
        // one host: the job's records in a directory of ours, every rank read here
        Path jobs = work.resolve("jobs");
        JobSpec local = spec(ws, np, heap, work.resolve("control-local")).env("MPILENS_JOBS", jobs.toString())
                .env("MPILENS_JOB", "bench-one-host").build();
        try (Job job = Job.launch(local)) {
            System.out.println("one host: starting " + np + " ranks ...");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), np, START);
            time("one host", Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1"), List.of("--job", "bench-one-host", "--timeout", timeout),
                    rounds, np, oneHost);
        }

        Map<String, String> simEnv = Map.of("SIMHOSTS_DIR", "/run/mpilens-simhosts-bench" + ProcessHandle.current().pid(),
                "SIMHOSTS_PREFIX", "hb" + ProcessHandle.current().pid() + "-");
        List<String> names = run(simhosts, simEnv, "up", Integer.toString(hostCount)).lines().filter(l -> !l.isBlank()).toList();
        try {
            String agent = run(simhosts, simEnv, "rsh-agent").trim();
            StringBuilder hostList = new StringBuilder();
            for (String n : names) hostList.append(hostList.length() == 0 ? "" : ",").append(n).append(':').append(np / hostCount);
            JobSpec across = spec(ws, np, heap, work.resolve("control-hosts"))
                    .mpirunArgs("--mca plm_rsh_agent " + agent + " --mca plm_rsh_no_tree_spawn 1 --host " + hostList).build();
            try (Job job = Job.launch(across)) {
                System.out.println(hostCount + " hosts: starting " + np + " ranks, " + np / hostCount + " per host ...");
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), np, START);
                String id = run(simhosts, simEnv, "exec", names.get(0), "ls /tmp/mpilens-$(id -u)/jobs").trim();
                Map<String, String> env = Map.of("MPILENS_JOBS", work.resolve("launch-host-jobs").toString(), "NO_COLOR", "1",
                        "MPILENS_SSH", agent, "MPILENS_REMOTE", ws.root.resolve("mpilens").toString());
                time(hostCount + " hosts", env, List.of("--job", id, "--hosts", String.join(",", names), "--timeout", timeout), rounds, np,
                        manyHosts);
            }
        } finally {
            run(simhosts, simEnv, "down");
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "HostsBench: Open MPI, %d ranks of %s paused at 'ready' (-Xmx%s), on one host and over %d"
                + " simulated hosts (%d each; a collector per host, ./mpilens collect, started with the ssh stand-in); median of %d runs per command%n",
                np, MAIN_CLASS, heap, hostCount, np / hostCount, rounds);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after%n%n", Machine.cpus(), loadBefore,
                Machine.loadAverage());
        ResultTable t = new ResultTable(1, "command", "one host (ms)", hostCount + " hosts (ms)", "ratio");
        boolean met = true;
        for (String c : COMMANDS) {
            if (oneHost.get(c).count() == 0 || manyHosts.get(c).count() == 0) {
                t.row(c + " --job", oneHost.get(c).count() == 0 ? "-" : ResultTable.ms(oneHost.get(c).median()),
                        manyHosts.get(c).count() == 0 ? "-" : ResultTable.ms(manyHosts.get(c).median()), "-");
                met = false;
                continue;
            }
            double ratio = manyHosts.get(c).median() / oneHost.get(c).median();
            met &= ratio <= GOAL_RATIO;
            t.row(c + " --job", ResultTable.ms(oneHost.get(c).median()), ResultTable.ms(manyHosts.get(c).median()), ResultTable.ratio(ratio));
        }
        System.out.print(t.render());
        if (!incomplete.isEmpty()) System.out.println("runs that missed ranks (not timed): " + incomplete);
        System.out.printf(Locale.ROOT, "goal: across %d hosts within %.1fx of one host: %s%n", hostCount, GOAL_RATIO, met ? "MET" : "NOT MET");
    }

    private static JobSpec.Builder spec(Workspace ws, int np, String heap, Path control) throws IOException {
        // the control directory outside /tmp: every simulated host has a /tmp of its own
        return JobSpec.builder(Binding.OPENMPI, np, MAIN_CLASS).classPath(ws.openMpiExampleClassPath())
                .agentJar(ws.agentJar()).jdwp(true).controlDir(Files.createDirectories(control))
                .jvmOptions("-Xmx" + heap, "-Xms16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1").startTimeout(START);
    }

    /** One warm-up run of each command, then {@code rounds} timed ones, alternating; each must show all {@code np} ranks. */
    private static void time(String side, Map<String, String> env, List<String> target, int rounds, int np,
                             Map<String, Samples> into) {
        for (String c : COMMANDS) into.put(c, new Samples());
        for (int r = 0; r <= rounds; r++) {
            for (String c : COMMANDS) {
                List<String> cmd = new ArrayList<>(List.of(c));
                cmd.addAll(target);
                long t0 = System.nanoTime();
                String[] result = cli(cmd, env);
                double ms = (System.nanoTime() - t0) / 1e6;
                String missed = null;
                if (!result[0].equals("0")) {
                    long unanswered = result[2].lines().filter(l -> l.contains("no answer") || l.contains("did not answer")).count();
                    missed = "exit " + result[0] + ", " + unanswered + " ranks or hosts unanswered";
                } else if (c.equals("cominfo") && !result[1].contains("| members 0-" + (np - 1) + " ")) {
                    missed = "MPI_COMM_WORLD without all " + np + " ranks";
                }
                if (missed != null) incomplete.merge(side + " " + c, 1, Integer::sum);
                else if (r > 0) into.get(c).add(ms);
                System.out.printf(Locale.ROOT, "%-8s %-8s %s %8.0f ms%s%n", side, c, r == 0 ? "warm-up" : "run " + r, ms,
                        missed == null ? "" : "  INCOMPLETE (" + missed + "): not timed");
            }
        }
    }

    private static String[] cli(List<String> args, Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    private static String run(Path simhosts, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(simhosts.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
        b.environment().putAll(env);
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IOException("scripts/simhosts " + String.join(" ", args) + " failed:\n" + out);
        return out;
    }
}
