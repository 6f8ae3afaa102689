package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.testing.FieldsTarget;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mpilens dump}: the handles table and JSON from dumps, and one clear line for a dump without the agent. */
class DumpCommandTest {
    @TempDir
    static Path dir;
    static Path rank1;
    static Path noAgent;

    @BeforeAll
    static void dumps() throws Exception {
        try (TargetJvm t = TargetJvm.launch(RegistryTarget.class)) {
            rank1 = HeapDumper.dump(t.pid(), dir.resolve("rank1.hprof"), false);
        }
        try (TargetJvm t = TargetJvm.launch(FieldsTarget.class)) {
            noAgent = HeapDumper.dump(t.pid(), dir.resolve("no-agent.hprof"), false);
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void printsTheHandlesOfTheDumpedRankWithTheFileAsItsAddress() {
        Run r = run("dump", rank1.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("rank1.hprof"), r.out());
        assertTrue(r.out().contains("split"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void printsJsonOfTheSameSchemaAsHandles() {
        Run r = run("dump", "--json", rank1.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("{"), r.out());
        assertTrue(r.out().contains("\"rank1.hprof\""), r.out());
    }

    @Test
    void aDumpWithoutTheAgentNorAnMpiBindingIsOneLineAndExitCode3WhileTheOthersArePrinted() {
        Run r = run("dump", rank1.toString(), noAgent.toString());
        assertEquals(MpiLensCli.EXIT_UNREADABLE, r.exit());
        assertTrue(r.out().contains("split"), r.out());
        assertEquals("mpilens: no-agent.hprof holds no mpilens registry (its JVM ran without"
                + " -javaagent:mpilens-agent.jar) and no MPI binding is loaded in no-agent.hprof (no class mpi.MPI):"
                + " the JVM had not started MPI yet, or runs a binding mpilens does not know (it knows Open MPI's"
                + " Java bindings and MPJ Express)", r.err().strip());
    }

    @Test
    void aMissingFileSaysSo() {
        Run r = run("dump", dir.resolve("nope.hprof").toString());
        assertEquals(MpiLensCli.EXIT_USAGE, r.exit());
        assertTrue(r.err().startsWith("mpilens: " + dir.resolve("nope.hprof") + ": no such file"), r.err());
    }

    @Test
    void leaksFromADumpGroupsThePendingRequestAndTheActiveDatatypeByCreationSite() {
        Run r = run("leaks", rank1.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("2 leaked handles in 2 places (1 rank ended)", lines.get(0));
        assertTrue(lines.get(2).matches(" +1  request never completed +request +1"), lines.get(2));
        assertTrue(lines.get(3).contains("creation site not recorded"), lines.get(3));
        assertTrue(lines.get(4).matches(" +1  still active at the end +datatype +1"), lines.get(4));
        assertEquals("        at demo.Ring.main(Ring.java:50)", lines.get(5));
        for (String line : lines) assertTrue(line.length() <= 80, line);

        Run json = run("leaks", "--json", rank1.toString());
        assertTrue(json.out().startsWith("{\"schema\":\"mpilens-leaks/2\",\"total\":2"), json.out());
        // the conventions of mpilens/1: enum names as they are, ids as strings
        assertTrue(json.out().contains("{\"problem\":\"REQUEST_NEVER_COMPLETED\",\"kind\":\"REQUEST\","), json.out());
        assertTrue(json.out().matches(".*\"ids\":\\[\"\\d+\"\\].*\\s*"), json.out());
        assertTrue(json.out().contains(",\"errors\":[]}"), json.out());
    }

    @Test
    void leaksWantsEitherAttachOrDumps() {
        Run r = run("leaks");
        assertEquals(MpiLensCli.EXIT_USAGE, r.exit());
        assertTrue(r.err().contains("give --job ID, --attach HOST:PORT,... or heap dump files"), r.err());
    }
}
