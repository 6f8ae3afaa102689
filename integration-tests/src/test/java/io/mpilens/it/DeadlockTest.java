package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobObserver;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real job that hangs without any failure ({@code examples.openmpi.Deadlock} under Open MPI,
 * {@code examples.mpj.Deadlock} under MPJ Express niodev; 5 ranks):
 * ranks 0 and 1 each receive from the other, rank 2 waits in a barrier, ranks 3 and 4 play
 * ping-pong. {@code mpilens calls --confirm} calls 0 and 1 a DEADLOCK with 2 stuck behind them,
 * and never the busy pair, although a single look usually finds both of them inside {@code recv};
 * one look alone only says "possible". The agents' counts of blocking calls are what tells the
 * pair apart, so they are checked to move on the busy ranks and stand on the stuck ones.
 */
class DeadlockTest {
    private static final String JOB = "it-deadlock";
    private static final String OPEN_MPI = "io.mpilens.examples.openmpi.Deadlock";
    private static final String MPJ = "io.mpilens.examples.mpj.Deadlock";
    private static final int RANKS = 5;
    private static final Duration WATCH_WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    void openMpiTwoRanksReceivingFromEachOtherAreADeadlockAndTheBusyPairIsNot() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "", "recv on MPI_COMM_WORLD peer 1 tag 7",
                "recv on MPI_COMM_WORLD peer 0 tag 7", "barrier");
    }

    /** The same with iRecv + waitAll: the requests in the array say whom the wait is for. */
    @Test
    void openMpiWaitAllOnReceivesFromEachOtherIsADeadlock() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "requests", "waitAll", "waitAll", "barrier");
    }

    /** Rank 0 receives from MPI.ANY_SOURCE on a communicator whose only other member waits for rank 0 (with MPI.ANY_TAG, -1). */
    @Test
    void openMpiReceiveFromAnySourceThatNoMemberCanSendIsADeadlock() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "anysource", "recv on pair peer any tag 7",
                "recv on pair peer 0 tag any", "barrier");
    }

    /** Rank 1's synchronous send of tag 8 sits beside rank 0's receive of tag 7: paired by peer, not by tag. */
    @Test
    void openMpiSendAndReceiveWithDifferentTagsAreADeadlock() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "tags", "recv on MPI_COMM_WORLD peer 1 tag 7",
                "sSend on MPI_COMM_WORLD peer 0 tag 8", "barrier");
    }

    /** Both ranks in sendRecv with the other, sending tag 7, receiving tag 8: the receive halves never match. */
    @Test
    void openMpiSendReceivesWhoseReceiveHalvesNeverMatchAreADeadlock() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "sendrecv",
                "sendRecv on MPI_COMM_WORLD to 1 tag 7 from 1 tag 8", "sendRecv on MPI_COMM_WORLD to 0 tag 7 from 0 tag 8",
                "barrier");
    }

    /**
     * Over an intercommunicator a peer is a rank of the remote group: rank 0's remote rank 1 is
     * rank 1, rank 1's remote rank 0 is rank 0 (read through the local groups [0, 3] and [4, 1]
     * they would be the busy ranks 3 and 4, and no deadlock).
     */
    @Test
    void openMpiReceivesOverAnIntercommunicatorWaitForRanksOfTheRemoteGroup() throws Exception {
        deadlock(Binding.OPENMPI, OPEN_MPI, "intercomm", "recv on bridge peer 1 tag 7",
                "recv on bridge peer 0 tag 7", "barrier");
    }

    /**
     * MPJ Express niodev (one JVM per rank). Its classes carry local variable tables, and over JDI
     * the woven {@code Recv} frame gives no arguments: the peer comes from the {@code recv} it delegates to.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevTwoRanksReceivingFromEachOtherAreADeadlockAndTheBusyPairIsNot() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "", "Recv on MPI_COMM_WORLD peer 1 tag 7",
                "Recv on MPI_COMM_WORLD peer 0 tag 7", "Barrier");
    }

    /** MPJ's MPI.ANY_SOURCE and MPI.ANY_TAG (-2, not Open MPI's -1) on a communicator split off (no name: called as in cominfo). */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevReceiveFromAnySourceThatNoMemberCanSendIsADeadlock() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "anysource", "Recv on Split\\(MPI_COMM_WORLD\\) peer any tag 7",
                "Recv on Split\\(MPI_COMM_WORLD\\) peer 0 tag any", "Barrier");
    }

    /**
     * MPJ's Sendrecv posts Irecv and Isend itself and waits for each: its woven frame gives no
     * arguments and no inner frame has them, so the receive half comes from the request of the
     * Wait it is inside; the send half is not known.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevSendReceivesWhoseReceiveHalvesNeverMatchAreADeadlock() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "sendrecv",
                "Sendrecv on MPI_COMM_WORLD from 1 tag 8", "Sendrecv on MPI_COMM_WORLD from 0 tag 8", "Barrier");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevSendAndReceiveWithDifferentTagsAreADeadlock() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "tags", "Recv on MPI_COMM_WORLD peer 1 tag 7",
                "Ssend on MPI_COMM_WORLD peer 0 tag 8", "Barrier");
    }

    /**
     * MPJ Express multicore: all five ranks are threads of one JVM, one class loader each. Each
     * thread's frames go to the rank of its loader's COMM_WORLD, and the agent counts blocking
     * returns per rank, so the busy pair does not keep ranks 0 and 1 of the same JVM from being confirmed.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjMulticoreRanksOfOneJvmAreToldApartAndTheDeadlockConfirmed() throws Exception {
        deadlock(Binding.MPJ_MULTICORE, MPJ, "", "Recv on MPI_COMM_WORLD peer 1 tag 7",
                "Recv on MPI_COMM_WORLD peer 0 tag 7", "Barrier");
    }

    /** The MPJ twin of the intercommunicator case (its intercommunicator has no name: called as in cominfo). */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevReceivesOverAnIntercommunicatorWaitForRanksOfTheRemoteGroup() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "intercomm", "Recv on Create_intercomm\\(MPI_COMM_WORLD\\) peer 1 tag 7",
                "Recv on Create_intercomm\\(MPI_COMM_WORLD\\) peer 0 tag 7", "Barrier");
    }

    /** MPJ's Waitall gives no arguments either: the request of the Wait it is inside now says whom it waits for. */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevWaitallOnReceivesFromEachOtherIsADeadlock() throws Exception {
        deadlock(Binding.MPJ_NIODEV, MPJ, "requests", "Waitall", "Waitall", "Barrier");
    }

    /**
     * @param rank0 how the call of rank 0 reads (a regular expression), and {@code rank1} that of rank 1
     */
    private void deadlock(Binding binding, String mainClass, String mode, String rank0, String rank1, String barrier)
            throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        JobSpec.Builder builder = JobSpec.builder(binding, RANKS, mainClass);
        if (!mode.isEmpty()) builder.appArgs(mode);
        // watch (Open MPI, blocking mode) kills rank 1: the others keep running
        if (binding == Binding.OPENMPI) builder.mpirunArgs("--mca orte_abort_on_non_zero_status 0");
        JobSpec spec = builder
                .classPath(Tours.classPath(binding)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build();
        try (Job job = Job.launch(spec)) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), RANKS, Tours.START);
            Files.createFile(control.resolve("ready.go"));
            job.awaitLines(l -> l.contains("MPILENS-STUCK "), RANKS, Tours.START);

            // the agents count blocking calls: they stand on ranks 0-2, move on the ping-pong pair
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, Duration.ofSeconds(5));
            JobModel first = o.observe();
            Thread.sleep(500);
            JobModel second = o.observe();
            for (int r = 0; r < RANKS; r++) {
                long a = returns(first, r);
                long b = returns(second, r);
                assertTrue(a >= 0 && b >= a, "rank " + r + ": " + a + " then " + b);
                if (r >= 3) assertTrue(b > a, "ping-pong rank " + r + " counted nothing: " + a + " then " + b);
            }

            String text = null;
            Path svg = tmp.resolve("calls.svg");
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                text = Cli.run(jobs, MpiLensCli.EXIT_OK, "calls", "--job", JOB, "--no-color", "--confirm", "1.5",
                        "--svg", svg.toString());
                if (text.contains("\nDEADLOCK: ")) break;
                Thread.sleep(500);
            }
            assertTrue(text.contains("\nDEADLOCK: ranks 0 1 wait for each other; no blocking call returned in "), text);
            assertTrue(text.contains("\n  cycle 0 -> 1 -> 0\n"), text);
            assertTrue(Pattern.compile("\n  rank 0  " + rank0 + "  waits for 1\n").matcher(text).find(), text);
            assertTrue(Pattern.compile("\n  rank 1  " + rank1 + "  waits for 0\n").matcher(text).find(), text);
            assertTrue(text.contains("\n  stuck behind them: rank 2\n    rank 2  " + barrier
                    + " on MPI_COMM_WORLD  waits for 0 1\n"), text);
            assertFalse(text.contains("possible deadlock"), text);
            pictureOfTheDeadlock(svg, binding + (mode.isEmpty() ? "" : "-" + mode));

            String json = Cli.run(jobs, MpiLensCli.EXIT_OK, "calls", "--job", JOB, "--json", "--confirm", "1.5");
            assertTrue(json.contains("\"confirmed\":[0,1]") && json.contains("\"behindConfirmed\":[2]"), json);
            assertTrue(json.contains("\"cycle\":[0,1,0]"), json);
            if (mode.equals("intercomm")) {
                // what the agent recorded of rank 0's intercommunicator: its two groups
                String handles = Cli.run(jobs, MpiLensCli.EXIT_OK, "handles", "--job", JOB, "--ranks", "0", "--json");
                assertTrue(Pattern.compile("\"members\":\\[0,3\\],\"inter\":true,\"remoteMembers\":\\[4,1\\]")
                        .matcher(handles).find(), handles);
                // and cominfo makes the two sides one communicator of both groups
                String cominfo = Cli.run(jobs, MpiLensCli.EXIT_OK, "cominfo", "--job", JOB, "--json");
                String both = "\"members\":[0,3,4,1],\"groups\":[[0,3],[4,1]]";
                assertEquals(2, cominfo.split(Pattern.quote(both), -1).length, cominfo);
            }

            // one look: not more than "possible", never the word DEADLOCK
            String once = Cli.run(jobs, MpiLensCli.EXIT_OK, "calls", "--job", JOB, "--no-color");
            assertFalse(once.contains("DEADLOCK"), once);
            assertTrue(once.contains("\npossible deadlock (one look): "), once);

            if (binding == Binding.OPENMPI && mode.isEmpty()) watchSaysWhenTheDeadlockComesAndGoes(jobs);
        }
    }

    /**
     * {@code watch --deadlocks} names the deadlock once it is confirmed over two rounds, and says
     * it is over when rank 1 is killed (rank 0 then waits for a FAILED rank: not a deadlock).
     */
    private void watchSaysWhenTheDeadlockComesAndGoes(Path jobs) throws Exception {
        Cli.Output out = new Cli.Output();
        Cli.Output err = new Cli.Output();
        java.util.concurrent.CompletableFuture<Integer> exit = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> MpiLensCli.run(new String[] {"watch", "--job", JOB, "--interval", "1", "--deadlocks"},
                        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                        Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1")));
        Cli.await(out, l -> l.endsWith("  DEADLOCK: ranks 0 1 wait for each other  (cycle 0 -> 1 -> 0)"), "the deadlock",
                WATCH_WAIT);
        Cli.await(out, l -> l.endsWith("  stuck behind them: rank 2"), "the rank stuck behind it", WATCH_WAIT);
        assertTrue(out.lines().stream().noneMatch(l -> l.contains("DEADLOCK") && (l.contains(" 3") || l.contains(" 4"))),
                String.join("\n", out.lines()));
        long pid = new JobDirectory(jobs).job(JOB).records().stream().filter(r -> r.rank() == 1).findFirst()
                .orElseThrow().pid();
        assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor());
        Cli.await(out, l -> l.endsWith("  ranks 0 1: no longer deadlocked"), "the end of the deadlock", WATCH_WAIT);
        assertFalse(exit.isDone() && exit.get() != MpiLensCli.EXIT_OK, String.join("\n", err.lines()));
    }

    /**
     * The SVG that the confirming {@code calls --svg} wrote: well-formed, a box per rank, the cycle's
     * two arrows in the deadlock's colour, rank 2 behind it, the busy pair not called deadlocked. A
     * copy goes to {@code target/pictures/} to look at.
     */
    private static void pictureOfTheDeadlock(Path svg, String name) throws Exception {
        org.w3c.dom.Document d = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        Map<String, org.w3c.dom.Element> ranks = new java.util.TreeMap<>();
        Map<String, org.w3c.dom.Element> waits = new java.util.TreeMap<>();
        org.w3c.dom.NodeList gs = d.getElementsByTagName("g");
        for (int i = 0; i < gs.getLength(); i++) {
            org.w3c.dom.Element g = (org.w3c.dom.Element) gs.item(i);
            if (g.getAttribute("class").equals("rank")) ranks.put(g.getAttribute("data-rank"), g);
            if (g.getAttribute("class").equals("wait")) waits.put(g.getAttribute("data-from") + "->" + g.getAttribute("data-to"), g);
        }
        String all = Files.readString(svg);
        assertEquals(java.util.Set.of("0", "1", "2", "3", "4"), ranks.keySet(), all);
        for (String r : new String[] {"0", "1"}) assertEquals("DEADLOCK", ranks.get(r).getAttribute("data-verdict"), all);
        assertEquals("BEHIND_DEADLOCK", ranks.get("2").getAttribute("data-verdict"), all);
        for (String r : new String[] {"3", "4"}) assertFalse(ranks.get(r).getAttribute("data-verdict").contains("DEADLOCK"), all);
        String red = io.mpilens.headless.text.WaitForPicture.colour(io.mpilens.headless.ft.WaitFor.Verdict.DEADLOCK);
        for (String edge : new String[] {"0->1", "1->0"}) {
            org.w3c.dom.Element w = waits.get(edge);
            assertTrue(w != null && w.getAttribute("data-cycle").equals("true"), edge + " on the cycle:\n" + all);
            assertEquals(red, ((org.w3c.dom.Element) w.getElementsByTagName("polyline").item(0)).getAttribute("stroke"), all);
        }
        assertTrue(waits.containsKey("2->0") && waits.containsKey("2->1"), all);
        Path pictures = Files.createDirectories(Tours.ROOT.resolve("integration-tests/target/pictures"));
        Files.copy(svg, pictures.resolve("calls-deadlock-" + name + ".svg"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // rendered by another program (librsvg, scripts/setup-env) for people to look at; without it the SVG alone
        boolean rsvg = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, "rsvg-convert")));
        if (rsvg) {
            Path png = pictures.resolve("calls-deadlock-" + name + ".png");
            Process p = new ProcessBuilder("rsvg-convert", "-o", png.toString(), svg.toString()).redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), "rsvg-convert could not render the picture: " + said);
            assertTrue(Files.size(png) > 1000, png.toString());
        }
    }

    private static long returns(JobModel m, int rank) {
        ProcessSnapshot p = m.rank(rank).map(RankStatus::snapshot).orElseThrow();
        return p.agentHealth().blockingReturns();
    }
}
