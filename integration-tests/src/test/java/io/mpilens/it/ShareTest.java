package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jdi.Location;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mpilens share} on a real 4-rank Open MPI job ({@code HandleTour}): jdb, driven through
 * its standard input, debugs rank 1 through the share (breakpoint, locals, print, step, cont)
 * while {@code handles --job}, {@code cominfo} and {@code calls} read every rank, that one
 * included, before the breakpoint and while it is stopped; a second jdb killed with SIGKILL while
 * stopped lets the rank go on; jdb and a JDI client (attached as IntelliJ IDEA attaches) on the
 * same rank each get only their own breakpoint's events. The share's port of a rank stays the same
 * throughout, and the share ends with the job.
 */
class ShareTest {
    static final String JOB = "it-share";
    private static final String TOUR = "io.mpilens.examples.openmpi.HandleTour";
    static final Duration JDB = Duration.ofSeconds(90);
    /** The rest of a stop's location line and jdb's prompt after it: a person types the next command then. */
    static final String PROMPT = " bci=[0-9,]+\\s+\\S+\\[\\d+\\] ";

    @TempDir
    Path tmp;

    /** The line of HandleTour.java that holds {@code code}, as jdb's {@code stop at} takes it. */
    private static int line(String code) throws Exception {
        return line(code, 0);
    }

    /** The first such line after line {@code after}. */
    private static int line(String code, int after) throws Exception {
        return line("openmpi", code, after);
    }

    static int line(String example, String code, int after) throws Exception {
        List<String> lines = Files.readAllLines(Tours.ROOT.resolve("examples/" + example + "/src/main/java/io/mpilens/examples/"
                + example + "/HandleTour.java"));
        for (int i = after; i < lines.size(); i++) if (lines.get(i).trim().startsWith(code)) return i + 1;
        throw new AssertionError("HandleTour.java has no line " + code);
    }

    /**
     * The test job's directory, no colour. The reads below pass {@code --hosts none}: without it a
     * read also follows the hosts of any other {@code mpirun} of this user on this machine (another
     * test's job on simulated hosts, say), which are not this job's.
     */
    static Map<String, String> env(Path jobs) {
        return Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1");
    }

    /**
     * An mpilens read, again while a rank only answered late (exit 3, "no answer within the
     * deadline": cominfo and calls give up on a rank some time after the first answered, and a
     * busy machine makes a rank late), for up to {@link Tours#START}; then its last result.
     */
    static Cli.Result everyRankAnswering(Path jobs, String... args) throws InterruptedException {
        long deadline = System.nanoTime() + Tours.START.toNanos();
        Cli.Result r = Cli.mpilens(env(jobs), args);
        while (r.code() == 3 && r.err().contains("no answer within the deadline") && System.nanoTime() < deadline) {
            Thread.sleep(500);
            r = Cli.mpilens(env(jobs), args);
        }
        return r;
    }

    /** {@code handles --job} as JSON; every rank read (exit 0), each of the four printed. */
    static String handles(Path jobs) throws InterruptedException {
        Cli.Result r = everyRankAnswering(jobs, "handles", "--job", JOB, "--json", "--timeout", "30", "--hosts", "none");
        assertEquals(0, r.code(), r.all());
        for (int rank = 0; rank < 4; rank++) assertTrue(r.out().contains("\"rank\":" + rank + ","), "rank " + rank + " read: " + r.all());
        return r.out();
    }

    /** {@code cominfo} and {@code calls}: every rank answered (exit 0); cominfo shows the world of four. */
    static void cominfoAndCalls(Path jobs) throws InterruptedException {
        Cli.Result c = everyRankAnswering(jobs, "cominfo", "--job", JOB, "--timeout", "30", "--hosts", "none");
        assertEquals(0, c.code(), c.all());
        assertTrue(c.out().contains("MPI_COMM_WORLD") && c.out().contains("members 0-3"), c.all());
        Cli.Result calls = everyRankAnswering(jobs, "calls", "--job", JOB, "--timeout", "30", "--hosts", "none");
        assertEquals(0, calls.code(), calls.all());
    }

    /** The JSON without the addresses it was read at (direct or through the share), for comparing contents. */
    static String content(String json) {
        return json.replaceAll("127\\.0\\.0\\.1:\\d+", "ADDRESS");
    }

    static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    private static long pausedAt(Job job, String point) {
        return job.linesStartingWith("").stream().filter(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + point)).count();
    }

    /**
     * Resumes jdb once for every breakpoint stop it printed after {@code from} until all four ranks
     * pause at {@code point}: MPJ Express multicore's ranks are threads of one JVM, each with its own
     * copy of the class, so each may stop there, each stop one suspension of the whole JVM.
     */
    private static void continueUntilPaused(Job job, Jdb jdb, int from, String point) throws Exception {
        long deadline = System.nanoTime() + Tours.START.toNanos();
        int seen = from;
        while (pausedAt(job, point) < 4 && System.nanoTime() < deadline) {
            int stop = jdb.stoppedAfter(seen);
            if (stop >= 0) {
                seen = stop;
                jdb.type("resume"); // jdb's "cont" refuses while it thinks the JVM runs; "resume" always resumes once
            }
            Thread.sleep(50);
        }
        assertEquals(4, pausedAt(job, point), "all four ranks at " + point + "; jdb:\n" + jdb.transcript() + "\njob:\n" + job.tail());
    }

    /**
     * Waits for jdb's step to complete. MPJ Express multicore's rank threads pass the breakpoint
     * line together: each hit that jdb printed after the first ({@code firstStop} ends it) holds one
     * more suspension of the whole JVM (as it would attached directly), so jdb resumes once for
     * each, as a person would, until the stepping thread gets to run.
     */
    private static int awaitStep(Jdb jdb, int firstStop) throws Exception {
        long deadline = System.nanoTime() + JDB.toNanos();
        int seen = firstStop;
        while (System.nanoTime() < deadline) {
            int done = jdb.transcript().indexOf("Step completed: ", firstStop);
            if (done >= 0) return jdb.await(done, "Step completed: .*bci=[0-9,]+\\s+\\S+\\[\\d+\\] ", JDB);
            int stop = jdb.stoppedAfter(seen);
            if (stop >= 0) {
                seen = stop;
                jdb.type("resume"); // jdb's "cont" refuses while it thinks the JVM runs; "resume" always resumes once
            }
            Thread.sleep(50);
        }
        throw new AssertionError("jdb's step did not complete within " + JDB + ":\n" + jdb.transcript());
    }

    static Map<Integer, String> sharePorts(Path jobs) throws Exception {
        Map<Integer, String> out = new java.util.TreeMap<>();
        for (JobRecord r : new JobDirectory(jobs).job(JOB).records()) if (r.share() != null) out.put(r.rank(), r.share());
        return out;
    }

    /** The HandleTour of {@code b} with the agent and JDWP, its ranks registering in {@code jobs} as the job {@link #JOB}. */
    static Job launchTour(Binding b, Path control, Path jobs) throws Exception {
        return Job.launch(Tours.tour(b, control).env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build());
    }

    /** {@code mpilens share --job JOB} and then {@code more}, in the background: it runs until the job ends. */
    static CompletableFuture<Cli.Result> share(Path jobs, String... more) {
        String[] args = Stream.concat(Stream.of("share", "--job", JOB), Stream.of(more)).toArray(String[]::new);
        return CompletableFuture.supplyAsync(() -> Cli.mpilens(env(jobs), args));
    }

    static Map<Integer, String> awaitShared(Path jobs, CompletableFuture<Cli.Result> share) throws Exception {
        long deadline = System.nanoTime() + Tours.START.toNanos();
        Map<Integer, String> ports = sharePorts(jobs);
        while (ports.size() < 4 && !share.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            ports = sharePorts(jobs);
        }
        assertEquals(4, ports.size(), "every rank shared: " + ports + (share.isDone() ? share.join().all() : ""));
        return ports;
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void jdbDebugsARankThroughTheShareWhileMpilensReadsEveryRank() throws Exception {
        assumeTrue(Jdb.executable() != null, "jdb is not in " + System.getProperty("java.home") + "/bin");
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = launchTour(Binding.OPENMPI, control, jobs)) {
            Tours.awaitPause(job, "created");
            String direct = handles(jobs);

            CompletableFuture<Cli.Result> share = share(jobs, "--json");
            Map<Integer, String> ports = awaitShared(jobs, share);
            int rank1 = Integer.parseInt(ports.get(1).substring(ports.get(1).lastIndexOf(':') + 1));
            assertEquals(content(direct), content(handles(jobs)), "the same handles through the share as directly");

            // jdb on rank 1: a line breakpoint, hit once the ranks go on
            int split = line("split.free();");
            try (Jdb jdb = Jdb.attach(rank1)) {
                int at = jdb.await(0, "Initializing jdb", JDB);
                jdb.type("stop at " + TOUR + ":" + split);
                at = jdb.await(at, "Set breakpoint " + TOUR + ":" + split, JDB);
                cominfoAndCalls(jobs); // before the breakpoint, with jdb attached
                job.release("created");
                at = jdb.await(at, "Breakpoint hit: .*\"thread=main\", " + TOUR + "\\.main\\(\\), line=" + split + PROMPT, JDB);
                String stopped = handles(jobs); // rank 1 stopped at the breakpoint: read all the same
                cominfoAndCalls(jobs);
                assertTrue(stopped.contains("\"rank\":1,"), stopped);
                jdb.type("locals");
                at = jdb.await(at, "Local variables:.*rank = 1\n.*size = 4\n", JDB);
                jdb.type("print p");
                at = jdb.await(at, " p = \"orphans\"", JDB);
                jdb.type("step");
                at = jdb.await(at, "Step completed: .*\"thread=main\", mpi\\.Comm\\.free\\(\\), line=\\d+" + PROMPT, JDB);
                handles(jobs); // while stepping
                jdb.type("cont");
                Tours.awaitPause(job, "orphans"); // all four, rank 1 included
                handles(jobs);

                // the debugger killed while stopped: the rank goes on, mpilens still reads it
                int waitFor = line("recv.waitFor();");
                jdb.type("stop at " + TOUR + ":" + waitFor);
                at = jdb.await(at, "Set breakpoint " + TOUR + ":" + waitFor, JDB);
                job.release("orphans");
                jdb.await(at, "Breakpoint hit: .*line=" + waitFor + PROMPT, JDB);
                handles(jobs);
                jdb.kill();
            }
            Tours.awaitPause(job, "released");
            handles(jobs);
            assertEquals(ports, sharePorts(jobs), "each rank's share port is the one it had from the start");

            // jdb and a JDI client on rank 1, each with its own breakpoint, each told only of its own
            int persistentFree = line("persistent.free();");
            int finalize = line("MPI.Finalize();", persistentFree);
            try (Jdb jdb = Jdb.attach(rank1);
                 JdiTargetReader idea = JdiTargetReader.attach(io.mpilens.headless.jdi.JdwpAddress.parse(ports.get(1)), Duration.ofSeconds(30))) {
                int at = jdb.await(0, "Initializing jdb", JDB);
                jdb.type("stop at " + TOUR + ":" + persistentFree);
                at = jdb.await(at, "Set breakpoint", JDB);
                VirtualMachine vm = idea.virtualMachine();
                Location there = vm.classesByName(TOUR).get(0).locationsOfLine(finalize).get(0);
                BreakpointRequest mine = vm.eventRequestManager().createBreakpointRequest(there);
                mine.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                mine.enable();
                job.release("released");
                at = jdb.await(at, "Breakpoint hit: .*line=" + persistentFree + PROMPT, JDB);
                jdb.type("cont");
                EventSet s = vm.eventQueue().remove(JDB.toMillis());
                assertNotNull(s, "the JDI client's breakpoint at line " + finalize);
                for (Event e : s) {
                    assertTrue(e instanceof BreakpointEvent, "only its breakpoint: " + e);
                    assertSame(mine, e.request());
                    assertEquals(finalize, ((BreakpointEvent) e).location().lineNumber());
                }
                s.resume();
                Tours.awaitPause(job, "finalized");
                Tours.finish(job);
                assertTrue(jdb.awaitEnd(JDB), "jdb ends with the rank it debugs:\n" + jdb.transcript());
                assertFalse(jdb.transcript().contains("line=" + finalize), "jdb was not told of the JDI client's breakpoint:\n"
                        + jdb.transcript());
            }
            Cli.Result shared = share.get(Tours.START.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(0, shared.code(), "the share ends with the job: " + shared.all());
            assertTrue(shared.out().contains("\"schema\":\"mpilens-share/1\""), shared.all());
            assertTrue(Files.notExists(jobs.resolve(JOB).resolve(io.mpilens.headless.job.ShareRecords.fileName(
                    io.mpilens.api.job.HostName.local()))), "the share's ports are gone with it");
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void jdbDebugsAnMpjExpressMulticoreJobThroughTheShareWhileMpilensReadsEveryRank() throws Exception {
        assumeTrue(Jdb.executable() != null, "jdb is not in " + System.getProperty("java.home") + "/bin");
        String tour = "io.mpilens.examples.mpj.HandleTour";
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = launchTour(Binding.MPJ_MULTICORE, control, jobs)) {
            Tours.awaitPause(job, "created");
            String direct = handles(jobs);
            CompletableFuture<Cli.Result> share = share(jobs);
            Map<Integer, String> ports = awaitShared(jobs, share);
            assertEquals(1, new java.util.HashSet<>(ports.values()).size(), "one JVM, one share port for its four ranks: " + ports);
            assertEquals(content(direct), content(handles(jobs)), "the same handles through the share as directly");

            int contig = line("mpj", "contig.free();", 0);
            try (Jdb jdb = Jdb.attach(port(ports.get(0)))) {
                int at = jdb.await(0, "Initializing jdb", JDB);
                jdb.type("stop at " + tour + ":" + contig);
                at = jdb.await(at, "Set breakpoint " + tour + ":" + contig, JDB);
                cominfoAndCalls(jobs);
                int beforeRelease = jdb.length();
                job.release("created");
                at = jdb.await(at, "Breakpoint hit: .*" + tour + "\\.main\\(\\), line=" + contig + PROMPT, JDB);
                int firstStop = jdb.stoppedAfter(beforeRelease); // more rank threads may have stopped there since
                handles(jobs); // every rank's thread stopped (the breakpoint suspends the whole JVM): read all the same
                cominfoAndCalls(jobs);
                jdb.type("print p");
                at = jdb.await(at, " p = \"orphans\"", JDB);
                jdb.type("clear " + tour + ":" + contig);
                at = jdb.await(at, "Removed: breakpoint " + tour + ":" + contig, JDB);
                jdb.type("step");
                at = awaitStep(jdb, firstStop);
                jdb.type("cont");
                continueUntilPaused(job, jdb, at, "orphans");
                handles(jobs);

                int vecFree = line("mpj", "vec.free();", contig);
                at = jdb.length();
                jdb.type("stop at " + tour + ":" + vecFree);
                at = jdb.await(at, "Set breakpoint " + tour + ":" + vecFree, JDB);
                job.release("orphans");
                jdb.await(at, "Breakpoint hit: .*line=" + vecFree + PROMPT, JDB);
                handles(jobs);
                jdb.kill(); // while stopped: the JVM goes on without its breakpoint
            }
            Tours.awaitPause(job, "released");
            handles(jobs);
            assertEquals(ports, sharePorts(jobs), "the share port is the one it had from the start");
            Tours.toEnd(job, "released");
            Cli.Result shared = share.get(Tours.START.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(0, shared.code(), "the share ends with the job: " + shared.all());
            assertTrue(shared.out().contains("0-3"), "one row for the JVM of ranks 0-3: " + shared.all());
        }
    }

    /**
     * {@code mpilens run --share} as a user runs it (the CLI in a JVM of its own): the job's ranks
     * are shared as they register, the table goes to stderr, {@code --job} reads go through the
     * share's ports, and the share ends with the job.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void runWithShareSharesEveryRankUntilTheJobEnds() throws Exception {
        Path cli = Tours.ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        String cp = String.join(java.io.File.pathSeparator, Tours.classPath(Binding.OPENMPI).stream().map(Path::toString).toList());
        Cli.Running run = Cli.start(cli, List.of("-Dmpilens.home=" + Tours.ROOT, "-Dmpilens.agentJar=" + Tours.AGENT),
                Map.of("MPILENS_JOBS", jobs.toString()),
                "run", "--share", "--job-id", JOB, "-np", "4", "--", "-Dmpilens.control=" + control, "-cp", cp, TOUR);
        try {
            long deadline = System.nanoTime() + Tours.START.toNanos();
            Map<Integer, String> ports = Map.of();
            while (ports.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(200);
                if (Files.isDirectory(jobs.resolve(JOB))) ports = sharePorts(jobs);
            }
            assertEquals(4, ports.size(), "every rank shared: " + ports + "\n" + String.join("\n", run.err.lines()));
            handles(jobs);
            for (String p : new String[] {"created", "orphans", "released", "finalized"}) {
                Files.createFile(control.resolve(p + ".go"));
            }
            assertEquals(0, run.waitFor(Tours.START), String.join("\n", run.err.lines()));
            String err = String.join("\n", run.err.lines());
            for (int r = 0; r < 4; r++) {
                assertTrue(err.contains(ports.get(r)), "rank " + r + "'s port " + ports.get(r) + " in the table:\n" + err);
            }
            assertTrue(Files.notExists(jobs.resolve(JOB).resolve(io.mpilens.headless.job.ShareRecords.fileName(
                    io.mpilens.api.job.HostName.local()))), "the share's ports are gone with the job");
        } finally {
            run.stop();
        }
    }

    /**
     * A rank killed while a debugger is attached to it through the share: the debugger sees its
     * JVM go (jdb ends), the share names the rank as ended, and {@code cominfo} shows it FAILED
     * while the survivors are read on.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @SuppressWarnings("try") // the job is ended inside its try: the share must see it end
    void aRankKilledWhileDebuggedEndsForTheDebuggerAndCominfoShowsItFailed() throws Exception {
        assumeTrue(Jdb.executable() != null, "jdb is not in " + System.getProperty("java.home") + "/bin");
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = Job.launch(Tours.survivingJob("HangAfterFailure", control, jobs).env("MPILENS_JOB", JOB).build())) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
            CompletableFuture<Cli.Result> share = share(jobs);
            Map<Integer, String> ports = awaitShared(jobs, share);
            long pid = new JobDirectory(jobs).job(JOB).records().stream().filter(r -> r.rank() == 2).findFirst().orElseThrow().pid();
            try (Jdb jdb = Jdb.attach(port(ports.get(2)))) {
                jdb.await(0, "Initializing jdb", JDB);
                new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
                assertTrue(jdb.awaitEnd(JDB), "jdb ends with the rank it debugs:\n" + jdb.transcript());
            }
            Cli.Result cominfo = everyRankAnswering(jobs, "cominfo", "--job", JOB, "--timeout", "30", "--hosts", "none");
            assertEquals(0, cominfo.code(), cominfo.all());
            assertTrue(cominfo.out().contains("| members 0 1 2x 3 "), "rank 2 FAILED in MPI_COMM_WORLD: " + cominfo.all());
            Cli.Result survivors = everyRankAnswering(jobs, "handles", "--job", JOB, "--ranks", "0,1,3", "--json", "--hosts", "none");
            assertEquals(0, survivors.code(), survivors.all());
            assertEquals(ports.get(0), sharePorts(jobs).get(0), "the survivors' share ports stay");
            job.close(); // the survivors would wait in their barrier for ever
            Cli.Result shared = share.get(Tours.START.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(0, shared.code(), shared.all());
            assertTrue(shared.err().contains("rank 2 ended"), shared.all());
        }
    }
}
