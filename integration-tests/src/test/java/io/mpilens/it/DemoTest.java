package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code mpilens demo} on real Open MPI jobs: the handle tour, then the recovery story — cominfo
 * before (COMM_WORLD OK), during (rank 2 killed: DETECTED, the survivors' receives from it pending
 * on a FAILED peer) and after (COMM_WORLD RECOVERED by "survivors", which is OK) — and nothing it
 * started is left running.
 */
class DemoTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theDemoEndsWithTheRecoveryStory() throws Exception {
        List<String> lines = new java.util.ArrayList<>();
        String all = demo(lines, "--no-color");

        int story = indexOf(lines, l -> l.startsWith("job demo-recovery "), 0, all);
        int ok = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" OK -+"), story, all);
        int detected = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" DETECTED -+"), ok, all);
        for (int r : new int[] {0, 1, 3}) {
            indexOf(lines, l -> l.startsWith("| rank " + r + ": 1 request pending on FAILED [2]: iRecv #"), detected, all);
        }
        int recovered = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" RECOVERED -+"), detected, all);
        indexOf(lines, l -> l.startsWith("| rebuilt as survivors without the failed members"), recovered, all);
        int survivors = indexOf(lines, l -> l.startsWith("+- survivors ") && l.endsWith(" OK -+"), recovered, all);
        indexOf(lines, l -> l.startsWith("| members 0 1 3 "), survivors, all);
        indexOf(lines, l -> l.contains("rank 2: OK -> FAILED"), survivors, all);
        for (String l : lines) assertTrue(l.length() <= 80, l.length() + " columns: " + l);
        assertTrue(ProcessHandle.current().descendants().noneMatch(p -> p.isAlive() && p.info().commandLine()
                .map(c -> c.contains("mpirun") || c.contains("RecoverAfterFailure") || c.contains("HandleTour")).orElse(false)),
                "the demo stopped every process it started");
    }

    /**
     * {@code demo --recovery rebuild}: cominfo before, during (DETECTED), while the survivors are
     * inside spawn (RECOVERING, who is inside which call) and after the rebuild (RECOVERED (rebuilt),
     * the replacement named by pid and epoch); the timeline says DETECTED -> RECOVERING.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theRebuildStoryShowsRecoveringThenRebuilt() throws Exception {
        List<String> lines = new java.util.ArrayList<>();
        String all = demo(lines, "--no-color", "--recovery", "rebuild");
        int story = indexOf(lines, l -> l.startsWith("job demo-rebuild "), 0, all);
        int detected = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" DETECTED -+"), story, all);
        int recovering = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" RECOVERING -+"), detected, all);
        indexOf(lines, l -> l.startsWith("| inside  ranks 0 1 3: spawn on survivors"), recovering, all);
        int rebuilt = indexOf(lines, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" RECOVERED (rebuilt) -+"), recovering, all);
        int box = indexOf(lines, l -> l.startsWith("+- rebuilt ") && l.endsWith(" OK -+"), rebuilt, all);
        indexOf(lines, l -> l.startsWith("| members 0-3 "), box, all);
        indexOf(lines, l -> l.matches("\\| replaced 2 <- pid \\d+, epoch 1 \\(OK\\) +\\|"), box, all);
        indexOf(lines, l -> l.contains("comm MPI_COMM_WORLD: DETECTED -> RECOVERING"), box, all);
        indexOf(lines, l -> l.contains("rank 2 epoch 1: JOINING -> OK"), box, all);
        for (String l : lines) assertTrue(l.length() <= 80, l.length() + " columns: " + l);
        assertTrue(ProcessHandle.current().descendants().noneMatch(p -> p.isAlive() && p.info().commandLine()
                .map(c -> c.contains("mpirun") || c.contains("RebuildAfterFailure")).orElse(false)),
                "the demo stopped every process it started");
    }

    /** Runs {@code mpilens demo ARGS} in this JVM; its output lines go to {@code lines}; returns them and stderr, for messages. */
    private static String demo(List<String> lines, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String before = System.getProperty("mpilens.home");
        System.setProperty("mpilens.home", Tours.ROOT.toString());
        String[] command = new String[args.length + 1];
        command[0] = "demo";
        System.arraycopy(args, 0, command, 1, args.length);
        int code;
        try {
            code = MpiLensCli.run(command, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        } finally {
            if (before == null) System.clearProperty("mpilens.home"); else System.setProperty("mpilens.home", before);
        }
        lines.addAll(out.toString(StandardCharsets.UTF_8).lines().toList());
        String all = String.join("\n", lines) + "\n--- stderr:\n" + err.toString(StandardCharsets.UTF_8);
        assertEquals(MpiLensCli.EXIT_OK, code, all);
        return all;
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> p, int from, String all) {
        for (int i = from; i < lines.size(); i++) if (p.test(lines.get(i))) return i;
        throw new AssertionError("expected line not found after line " + from + " in:\n" + all);
    }
}
