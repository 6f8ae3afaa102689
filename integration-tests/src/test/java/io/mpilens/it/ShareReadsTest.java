package io.mpilens.it;

import static io.mpilens.it.ShareTest.JDB;
import static io.mpilens.it.ShareTest.JOB;
import static io.mpilens.it.ShareTest.PROMPT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link ShareTest} leaves out: {@code watch} and {@code leaks} read every rank through the
 * share while a debugger holds one rank suspended, and resume nothing of the debugger's (real
 * 4-rank Open MPI job); jdb through the share on a real MPJ Express niodev job (one JVM per rank,
 * started by its daemon) while {@code handles}, {@code cominfo} and {@code calls} read every rank.
 */
class ShareReadsTest {
    @TempDir
    Path tmp;

    /** {@code leaks --job --json}: every rank read (exit 0). */
    private static String leaks(Path jobs) throws InterruptedException {
        Cli.Result r = ShareTest.everyRankAnswering(jobs, "leaks", "--job", JOB, "--json", "--timeout", "30", "--hosts", "none");
        assertEquals(0, r.code(), r.all());
        return r.out();
    }

    private static ThreadReference mainThread(VirtualMachine vm) {
        for (ThreadReference t : vm.allThreads()) if (t.name().equals("main")) return t;
        throw new AssertionError("no main thread");
    }

    /** A line of {@code watch --json} in which rank {@code rank} answered (OK) at {@code address}. */
    private static Pattern answeredAt(int rank, String address) {
        return Pattern.compile("\\{\"rank\":" + rank + ",\"epoch\":\\d+,\"pid\":\\d+,\"host\":\"[^\"]*\",\"address\":\""
                + Pattern.quote(address) + "\",\"state\":\"OK\",[^}]*\"answerMillis\":\\d+\\}");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void watchAndLeaksReadEveryRankThroughTheShareWhileADebuggerHoldsOneSuspended() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        Cli.Output out = new Cli.Output();
        Cli.Output err = new Cli.Output();
        CompletableFuture<Integer> watch;
        CompletableFuture<Cli.Result> share;
        try (Job job = ShareTest.launchTour(Binding.OPENMPI, control, jobs)) {
            Tours.awaitPause(job, "created");
            job.release("created");
            Tours.awaitPause(job, "orphans"); // each rank has dropped a group it never freed: a leak
            String direct = leaks(jobs);
            assertTrue(direct.matches("(?s).*\"total\":[1-9].*"), "leaks found: " + direct);

            share = ShareTest.share(jobs);
            Map<Integer, String> ports = ShareTest.awaitShared(jobs, share);
            try (JdiTargetReader ide = JdiTargetReader.attach(JdwpAddress.parse(ports.get(1)), Duration.ofSeconds(30))) {
                VirtualMachine vm = ide.virtualMachine(); // attached as IntelliJ IDEA attaches, then paused
                vm.suspend();
                ThreadReference main = mainThread(vm);
                assertEquals(1, main.suspendCount());

                // a thread of its own: the share above holds the common pool's one thread on 2 CPUs until the job ends
                watch = CompletableFuture.supplyAsync(() -> MpiLensCli.run(new String[] {"watch", "--job", JOB, "--interval", "0.2",
                    "--timeout", "5", "--json", "--hosts", "none"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8), ShareTest.env(jobs)), r -> new Thread(r, "watch").start());
                List<Pattern> everyRank = List.of(answeredAt(0, ports.get(0)), answeredAt(1, ports.get(1)),
                        answeredAt(2, ports.get(2)), answeredAt(3, ports.get(3)));
                long deadline = System.nanoTime() + Tours.START.toNanos();
                while (out.lines().stream().noneMatch(l -> everyRank.stream().allMatch(p -> p.matcher(l).find()))
                        && !watch.isDone() && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertTrue(out.lines().stream().anyMatch(l -> everyRank.stream().allMatch(p -> p.matcher(l).find())),
                        "a round in which every rank answered through its share port, rank 1 suspended by the debugger:\n"
                        + String.join("\n", out.lines()) + "\nstderr:\n" + String.join("\n", err.lines())
                        + (watch.isDone() ? "\nwatch exited " + watch.join() : ""));

                assertEquals(ShareTest.content(direct), ShareTest.content(leaks(jobs)), "the same leaks through the share as directly");
                assertEquals(1, main.suspendCount(), "leaks suspended and resumed its own, not the debugger's");
                assertTrue(main.isSuspended());
                vm.resume();
            }
            Tours.toEnd(job, "orphans");
        }
        assertEquals(MpiLensCli.EXIT_OK, watch.get(60, TimeUnit.SECONDS), "watch ends with the job: " + String.join("\n", err.lines()));
        List<String> lines = out.lines();
        String last = lines.get(lines.size() - 1);
        for (int r = 0; r < 4; r++) {
            assertTrue(Pattern.compile("\\{\"rank\":" + r + ",[^}]*\"state\":\"FINALIZED\"").matcher(last).find(),
                    "rank " + r + " FINALIZED in watch's last model: " + last);
        }
        Cli.Result shared = share.get(Tours.START.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(0, shared.code(), "the share ends with the job: " + shared.all());
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void jdbDebugsAnMpjExpressNiodevRankThroughTheShareWhileMpilensReadsEveryRank() throws Exception {
        assumeTrue(Jdb.executable() != null, "jdb is not in " + System.getProperty("java.home") + "/bin");
        String tour = "io.mpilens.examples.mpj.HandleTour";
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = ShareTest.launchTour(Binding.MPJ_NIODEV, control, jobs)) {
            Tours.awaitPause(job, "created");
            String direct = ShareTest.handles(jobs);
            CompletableFuture<Cli.Result> share = ShareTest.share(jobs);
            Map<Integer, String> ports = ShareTest.awaitShared(jobs, share);
            assertEquals(4, new java.util.HashSet<>(ports.values()).size(), "one JVM per rank, one share port each: " + ports);
            assertEquals(ShareTest.content(direct), ShareTest.content(ShareTest.handles(jobs)), "the same handles through the share as directly");

            int contig = ShareTest.line("mpj", "contig.free();", 0);
            try (Jdb jdb = Jdb.attach(ShareTest.port(ports.get(1)))) {
                int at = jdb.await(0, "Initializing jdb", JDB);
                jdb.type("stop at " + tour + ":" + contig);
                at = jdb.await(at, "Set breakpoint " + tour + ":" + contig, JDB);
                ShareTest.cominfoAndCalls(jobs);
                job.release("created");
                at = jdb.await(at, "Breakpoint hit: .*" + tour + "\\.main\\(\\), line=" + contig + PROMPT, JDB);
                String stopped = ShareTest.handles(jobs); // rank 1 stopped at the breakpoint: read all the same
                assertTrue(stopped.contains("\"rank\":1,"), stopped);
                ShareTest.cominfoAndCalls(jobs);
                jdb.type("print p");
                at = jdb.await(at, " p = \"orphans\"", JDB);
                jdb.type("step");
                at = jdb.await(at, "Step completed: .*bci=[0-9,]+\\s+\\S+\\[\\d+\\] ", JDB);
                ShareTest.handles(jobs); // after a step
                jdb.type("cont");
                Tours.awaitPause(job, "orphans"); // all four, rank 1 included
                ShareTest.handles(jobs);
            }
            assertEquals(ports, ShareTest.sharePorts(jobs), "each rank's share port is the one it had from the start");
            Tours.toEnd(job, "orphans");
            Cli.Result shared = share.get(Tours.START.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(0, shared.code(), "the share ends with the job: " + shared.all());
            for (int r = 0; r < 4; r++) assertTrue(shared.out().contains(ports.get(r)), "rank " + r + "'s port in the table: " + shared.all());
        }
    }
}
