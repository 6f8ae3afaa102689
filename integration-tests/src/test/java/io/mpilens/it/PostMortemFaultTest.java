package io.mpilens.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.observe.HeapDumpJob;
import io.mpilens.headless.observe.JobObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cominfo}/{@code hostinfo} on heap dumps: a real 4-rank Open MPI HandleTour with the
 * agent, paused at "created", is observed live over JDWP and then dumped rank by rank with
 * jcmd; the fault model built from the dumps equals the live one (ranks, states, communicators
 * with their members and states). With one rank's dump missing, that rank is UNAVAILABLE (no
 * evidence of death), never FAILED; the status word the dumps show is OK, then UN_OTH ({@code status DUMP…}).
 */
class PostMortemFaultTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theModelFromDumpsOfEveryRankEqualsTheLiveOneAndAMissingDumpIsUnavailable(@TempDir Path control,
                                                                               @TempDir Path dumps) throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control).build())) {
            JobObserver observer = JobObserver.forAddresses(Tours.addresses(job, Binding.OPENMPI), Duration.ofSeconds(20));
            Tours.awaitPause(job, "created");
            JobModel live = observer.observe();
            List<Path> files = new ArrayList<>();
            for (long pid : Tours.rankJvmPids(job)) {
                files.add(HeapDumpTourTest.jcmdHeapDump(pid, dumps.resolve("rank-pid" + pid + ".hprof")));
            }
            assertEquals(4, files.size(), "one dump per rank JVM");

            HeapDumpJob.Reading all = HeapDumpJob.read(files, null);
            assertEquals(List.of(), all.problems());
            JobModel post = all.model();
            assertEquals(states(live), states(post), "ranks and their states, live and from the dumps");
            for (RankStatus r : post.processes()) assertEquals(ProcessState.OK, r.state(), r.toString());
            assertEquals(communicators(live), communicators(post), "communicators, live and from the dumps");
            assertTrue(post.communicators().size() >= 5, "the tour's communicators: " + post.communicators());
            assertEquals(1, post.hosts().size(), "one host: " + post.hosts());

            // rank 2's dump is missing: nothing is known about it, so UNAVAILABLE, and no communicator FAILED
            List<Path> three = new ArrayList<>();
            for (Path f : files) {
                if (HeapDumps.read(f).get(0).rank() != 2) three.add(f);
            }
            assertEquals(3, three.size());
            JobModel partial = HeapDumpJob.read(three, null).model();
            RankStatus rank2 = partial.rank(2).orElseThrow();
            assertEquals(ProcessState.UNAVAILABLE, rank2.state());
            assertEquals("no heap dump of this rank", rank2.evidence());
            for (CommunicatorView c : partial.communicators()) assertTrue(c.state() != CommState.FAILED, c.toString());
            // the status word the dumps show: OK with every rank's; rank 2 undefined without its dump
            assertEquals(StatusWord.OK, post.status().bits(), post.status().line());
            assertEquals(StatusWord.UN_OTH, partial.status().bits(), partial.status().line());
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            List<String> status = new ArrayList<>(List.of("status"));
            for (Path f : three) status.add(f.toString());
            int word = MpiLensCli.run(status.toArray(String[]::new), new PrintStream(said, true, UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, UTF_8), Map.of("NO_COLOR", "1"));
            assertEquals(16, word, said.toString(UTF_8));
            assertTrue(said.toString(UTF_8).contains("status  UN_OTH (16): rank 2 UNAVAILABLE (undefined)"), said.toString(UTF_8));

            // the CLI: positional dumps instead of --job/--attach
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(List.of("cominfo", "--json"));
            for (Path f : files) args.add(f.toString());
            int exit = MpiLensCli.run(args.toArray(String[]::new), new PrintStream(out, true, UTF_8),
                    new PrintStream(err, true, UTF_8), Map.of());
            assertEquals(0, exit, err.toString(UTF_8));
            assertTrue(out.toString(UTF_8).contains("\"tour-split-0\""), out.toString(UTF_8));
            out.reset();
            args.set(0, "hostinfo");
            args.remove("--json");
            exit = MpiLensCli.run(args.toArray(String[]::new), new PrintStream(out, true, UTF_8),
                    new PrintStream(err, true, UTF_8), Map.of());
            assertEquals(0, exit, err.toString(UTF_8));
            for (String line : out.toString(UTF_8).split("\n")) assertTrue(line.length() <= 80, line);

            Tours.awaitPause(job, "created");
            Tours.toEnd(job, "created");
        }
    }

    private static List<String> states(JobModel m) {
        List<String> out = new ArrayList<>();
        for (RankStatus r : m.processes()) out.add(r.rank() + ":" + r.state() + ":" + r.pid() + ":" + r.host());
        return out;
    }

    private static List<String> communicators(JobModel m) {
        List<String> out = new ArrayList<>();
        for (CommunicatorView c : m.communicators()) {
            out.add(c.label() + " " + c.members() + " " + c.state() + " parent=" + c.parent() + " seenBy=" + c.seenBy()
                    + " raisedOn=" + c.raisedOn());
        }
        return out;
    }
}
