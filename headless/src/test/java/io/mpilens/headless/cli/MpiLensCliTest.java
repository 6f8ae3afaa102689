package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MpiLensCliTest {
    private TargetJvm target;

    @AfterEach
    void stop() {
        if (target != null) target.close();
    }

    /** What a user sees: exit code, stdout and stderr lines. */
    record Run(int code, List<String> out, List<String> err, long millis) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        return new Run(code, out.toString(StandardCharsets.UTF_8).lines().toList(),
                err.toString(StandardCharsets.UTF_8).lines().toList(), (System.nanoTime() - start) / 1_000_000);
    }

    private static String closedAddress() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void anUnreachableAddressExits3WithinTheDeadlineWithOneLineOnStderr() throws Exception {
        String address = closedAddress();
        Run r = run("handles", "--attach", address, "--timeout", "2");
        assertEquals(3, r.code());
        assertEquals(List.of(), r.out());
        assertEquals(List.of("mpilens: " + address + " did not answer within 2 s (connection refused): is the rank"
                + " running with -agentlib:jdwp=transport=dt_socket,server=y,address=" + address
                + ", and no other debugger attached to it?"), r.err());
        assertTrue(r.millis() < 4_000, r.millis() + " ms");
    }

    @Test
    void usageErrorsExit2WithAMessageAndAHint() {
        Run none = run();
        assertEquals(2, none.code());
        assertEquals("mpilens: name a command, for example: mpilens handles --attach HOST:PORT", none.err().get(0));

        Run noAttach = run("handles");
        assertEquals(2, noAttach.code());
        assertTrue(noAttach.err().get(0).contains("Missing required argument") && noAttach.err().get(0).contains("--attach")
                && noAttach.err().get(0).contains("--job=ID"), noAttach.err().get(0));

        Run badAddress = run("handles", "--attach", "127.0.0.1:4000,node7");
        assertEquals(2, badAddress.code());
        assertTrue(badAddress.err().get(0).contains("'node7' is not a JDWP address of the form HOST:PORT"),
                badAddress.err().get(0));
        assertEquals("Try 'mpilens handles --help' for the options.", badAddress.err().get(1));

        assertEquals(2, run("handles", "--attach", "h:1", "--timeout", "0").code());
        assertEquals(2, run("handles", "--attach", "h:1", "--timeout", "soon").code());
        assertEquals(2, run("handles", "--attach", "h:1", "--frobnicate").code());

        Run both = run("handles", "--job", "j", "--attach", "h:1");
        assertEquals(2, both.code());
        assertEquals("mpilens: --attach=HOST:PORT, --job=ID are mutually exclusive (specify only one)", both.err().get(0));
        // ASCII only: a terminal with LANG=C shows anything else as '?'
        for (String c : List.of("cominfo", "calls", "watch", "leaks")) {
            for (String l : run(c).err()) assertTrue(l.chars().allMatch(ch -> ch < 128), c + ": " + l);
        }
    }

    @Test
    void helpAndVersionExit0() {
        Run help = run("handles", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().get(0).startsWith("Usage: mpilens handles"), help.out().get(0));
        Run version = run("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().get(0).startsWith("mpilens "), version.out().get(0));
    }

    @Test
    void printsEachRanksHandlesAsATable() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        String address = target.address();
        Run r = run("handles", "--attach", address);
        assertEquals(0, r.code(), r.err().toString());
        assertEquals(List.of(), r.err());
        assertTrue(r.out().get(0).startsWith("rank 1/2  pid " + target.pid() + " on "), r.out().get(0));
        assertTrue(r.out().get(0).endsWith("openmpi  INITIALIZED  agent ok  @" + address)
                || r.out().get(0).endsWith("agent ok"), r.out().get(0));
        assertTrue(r.out().stream().anyMatch(l -> l.matches(" +\\d+ comm  split +FREED\\* +1 0/1 +Ring\\.java:42")),
                String.join("\n", r.out()));
        assertTrue(r.out().stream().anyMatch(l -> l.matches(" +orphan, held by \\d+ \\(request\\)")),
                String.join("\n", r.out()));
        for (String line : r.out()) assertTrue(line.length() <= 80, line);
    }

    @Test
    void jsonHasTheReadRanksAndTheErrorsAndExits3WhenOneFailed() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        String closed = closedAddress();
        String address = target.address();
        Run r = run("handles", "--attach", closed + "," + address, "--json", "--suspend", "--timeout", "3");
        assertEquals(3, r.code());
        assertEquals(1, r.out().size(), "one line of JSON");
        String json = r.out().get(0);
        assertTrue(json.startsWith("{\"schema\":\"mpilens/1\",\"processes\":[{\"rank\":1,\"worldSize\":2,\"pid\":"
                + target.pid() + ","), json);
        assertTrue(json.contains("\"address\":\"" + address + "\""), json);
        assertTrue(json.contains("\"name\":\"MPI_COMM_WORLD\",\"predefined\":true"), json);
        assertTrue(json.contains("\"kind\":\"COMMUNICATOR\",\"predefined\":false,\"state\":\"FREED\",\"refCount\":1"),
                json);
        assertTrue(json.endsWith("\"errors\":[{\"address\":\"" + closed + "\",\"message\":\"" + closed
                + " did not answer within 3 s (connection refused): is the rank running with -agentlib:jdwp="
                + "transport=dt_socket,server=y,address=" + closed + ", and no other debugger attached to it?\"}]}"),
                json);
        assertEquals(1, r.err().size());
        assertTrue(target.isAlive());
    }

    @Test
    void kindAndStateKeepOnlyThoseHandlesInTheJson() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        String first = target.address();
        Run orphans = run("handles", "--attach", first, "--json", "--state", "FREED");
        assertEquals(0, orphans.code(), orphans.err().toString());
        String json = orphans.out().get(0);
        assertTrue(json.contains("\"state\":\"FREED\""), json);
        assertFalse(json.contains("\"state\":\"ACTIVE\"") || json.contains("\"state\":\"RELEASED\""), json);
        Run requests = run("handles", "--attach", target.awaitRelisten(first), "--json", "--kind", "REQUEST");
        assertEquals(0, requests.code(), requests.err().toString());
        assertTrue(requests.out().get(0).contains("\"kind\":\"REQUEST\""), requests.out().get(0));
        assertFalse(requests.out().get(0).contains("\"kind\":\"COMMUNICATOR\""), requests.out().get(0));
        Run bad = run("handles", "--attach", "h:1", "--kind", "SOCKET");
        assertEquals(2, bad.code());
        assertTrue(bad.err().get(0).contains("SOCKET") && bad.err().get(0).contains("COMMUNICATOR"), bad.err().toString());
    }

    @Test
    void mcpWithoutTheServerOnTheClassPathSaysWhichJarToRun() {
        Run r = run("mcp");
        assertEquals(2, r.code());
        assertTrue(r.err().get(0).startsWith("mpilens: this jar holds no MCP server: run 'mpilens mcp' through the mpilens"
                + " script"), r.err().toString());
        assertEquals(2, run("mcp", "--hold", "-1").code());
    }

    @Test
    void everyHelpFitsEightyColumnsAndEachCommandIsSummedUpInOneSentence() {
        Run top = run("--help");
        assertEquals(0, top.code());
        List<String> commands = List.of("handles", "dump", "leaks", "demo", "jobs", "run", "cominfo", "hostinfo",
                "calls", "watch", "collect", "mcp");
        for (String c : commands) {
            // the summary in the command list is the first description line: a whole sentence
            int at = top.out().indexOf(top.out().stream().filter(l -> l.startsWith("  " + c + " ")).findFirst()
                    .orElseThrow());
            String summary = top.out().get(at) + (top.out().get(at + 1).startsWith("      ") ? top.out().get(at + 1) : "");
            assertTrue(summary.endsWith("."), summary);
        }
        for (String c : commands) {
            Run help = run(c, "--help");
            assertEquals(0, help.code(), c);
            for (String l : help.out()) assertTrue(l.length() <= 80, c + ": " + l.length() + ": " + l);
            Run viaHelp = run("help", c);
            assertEquals(0, viaHelp.code(), c);
            assertEquals(help.out(), viaHelp.out(), c);
        }
    }

    @Test
    void faultCommandsExit3AndSayWhichRankDidNotAnswer() throws Exception {
        String address = closedAddress();
        for (String c : List.of("cominfo", "hostinfo", "calls")) {
            Run r = run(c, "--attach", address, "--timeout", "1");
            assertEquals(3, r.code(), c + " " + r.err());
            assertEquals(List.of("mpilens: " + address + " did not answer within 1 s (connection refused): is the rank"
                    + " running with -agentlib:jdwp=transport=dt_socket,server=y,address=" + address
                    + ", and no other debugger attached to it?"), r.err(), c);
            assertTrue(r.out().get(0).startsWith("job (addresses)  1 " + (c.equals("hostinfo") ? "host  " : "rank  ")),
                    r.out().get(0));
            assertTrue(r.out().get(0).matches(".*  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"), r.out().get(0));
        }
        // --svg is offered by the commands that draw (cominfo, hostinfo, calls), and only by them
        assertEquals(2, run("watch", "--attach", address, "--svg", "x.svg").code());
    }

    @Test
    void aMissingFileOrADirectoryIsAUsageErrorNamingIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        String missing = tmp.resolve("rank0.hprof").toString();
        for (String c : List.of("dump", "leaks", "cominfo", "hostinfo")) {
            Run r = run(c, missing);
            assertEquals(2, r.code(), c);
            assertEquals(List.of(), r.out(), c);
            assertEquals(List.of("mpilens: " + missing + ": no such file (give one heap dump per rank JVM, .hprof or"
                    + " .hprof.gz)"), r.err(), c);
            Run dir = run(c, tmp.toString());
            assertEquals(2, dir.code(), c);
            assertEquals(List.of("mpilens: " + tmp + " is a directory: name the heap dump files in it, e.g. "
                    + tmp.resolve("*.hprof")), dir.err(), c);
        }
    }

    @Test
    void aFileThatIsNoHeapDumpPrintsOnlyWhyAndExits3(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        java.nio.file.Path text = java.nio.file.Files.writeString(tmp.resolve("rank0.hprof"), "hello\n");
        for (String c : List.of("dump", "leaks", "cominfo", "hostinfo")) {
            Run r = run(c, text.toString());
            assertEquals(3, r.code(), c);
            assertEquals(List.of(), r.out(), c + ": nothing was read, so no empty report");
            assertEquals(1, r.err().size(), c + " " + r.err());
            assertTrue(r.err().get(0).startsWith("mpilens: rank0.hprof is not an HPROF heap dump"), r.err().get(0));
        }
    }

    @Test
    void demoNarrationIsWrappedToEightyColumns() {
        java.io.StringWriter w = new java.io.StringWriter();
        DemoCommand.say(new java.io.PrintWriter(w), "after: the survivors missed rank 2's status at the deadline and"
                + " built 'survivors' with createGroup: COMM_WORLD RECOVERED");
        List<String> lines = w.toString().lines().toList();
        assertEquals(List.of("mpilens demo: after: the survivors missed rank 2's status at the deadline and",
                "  built 'survivors' with createGroup: COMM_WORLD RECOVERED"), lines);
    }

    @Test
    void anSvgPathThatCannotBeWrittenIsAUsageErrorBeforeAnythingIsRead(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path tmp) throws Exception {
        String address = closedAddress();
        java.nio.file.Path inMissingDir = tmp.resolve("no-such-dir").resolve("comms.svg");
        Run r = run("cominfo", "--attach", address, "--svg", inMissingDir.toString());
        assertEquals(2, r.code());
        assertEquals(List.of(), r.out());
        assertEquals("mpilens: --svg: cannot write " + inMissingDir + ": the directory " + inMissingDir.getParent()
                + " does not exist", r.err().get(0));
        Run dir = run("hostinfo", "--attach", address, "--svg", tmp.toString());
        assertEquals(2, dir.code());
        assertEquals("mpilens: --svg: " + tmp + " is a directory: give a file name, e.g. " + tmp.resolve("hostinfo.svg"),
                dir.err().get(0));
        Run calls = run("calls", "--attach", address, "--svg", tmp.toString());
        assertEquals(2, calls.code());
        assertEquals("mpilens: --svg: " + tmp + " is a directory: give a file name, e.g. " + tmp.resolve("calls.svg"),
                calls.err().get(0));
    }

    /** A rank that does not answer is named as without --svg (exit code 3), and the picture is still drawn. */
    @Test
    void callsDrawsItsPictureEvenWhenARankDoesNotAnswer(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        String address = closedAddress();
        java.nio.file.Path svg = tmp.resolve("calls.svg");
        Run r = run("calls", "--attach", address, "--timeout", "1", "--svg", svg.toString());
        assertEquals(3, r.code(), r.err().toString());
        assertEquals("mpilens: wrote " + svg, r.err().get(0));
        String picture = java.nio.file.Files.readString(svg);
        assertTrue(picture.startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "), picture);
        assertTrue(picture.contains(">no thread of a readable rank is inside an MPI call</text>"), picture);
    }

    @Test
    void watchOnAnAddressNamesTheUnknownRankAndGivesTheWholeCauseOnceOnStderr() throws Exception {
        String line = WatchCommand.line(new io.mpilens.headless.ft.Transition(java.time.Instant.parse(
                "2026-11-22T01:43:34.325Z"), "rank -1", null, "UNAVAILABLE", "127.0.0.1:1 did not answer"));
        assertTrue(line.endsWith("  rank ?: UNAVAILABLE  (127.0.0.1:1 did not answer)"), line);

        String address = closedAddress();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread watch = new Thread(() -> MpiLensCli.run(new String[] {"watch", "--attach", address, "--timeout", "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of()));
        watch.setDaemon(true);
        watch.start();
        String cause = "mpilens: " + address + " did not answer within 1 s (connection refused)";
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!(err.toString(StandardCharsets.UTF_8).contains(cause)
                && out.toString(StandardCharsets.UTF_8).contains("  rank ?: UNAVAILABLE  (")) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        watch.interrupt();
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(cause), err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("  rank ?: UNAVAILABLE  ("),
                out.toString(StandardCharsets.UTF_8));
    }
}
