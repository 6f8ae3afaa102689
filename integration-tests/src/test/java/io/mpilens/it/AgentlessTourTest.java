package io.mpilens.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.headless.agentless.Agentless;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingObject;
import io.mpilens.headless.agentless.BindingObjects;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.text.AgentlessTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agentless mode on real jobs that run WITHOUT the mpilens agent: the HandleTour of each binding,
 * paused at "created", read live over JDI from the binding's own objects and from a heap dump of
 * the same suspended moment. What the fields show must be what the binding itself printed
 * (its MPILENS-EXPECT lines): Open MPI's C handles and datatype extents, MPJ Express's ranks,
 * sizes, members (world ranks, through the processes' UUIDs) and datatype sizes.
 */
class AgentlessTourTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void openMpiWithoutTheAgentShowsTheCHandlesTheBindingPrintedLiveAndInADump(@TempDir Path control,
                                                                               @TempDir Path dumps) throws Exception {
        tour(Binding.OPENMPI, control, dumps);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjMulticoreWithoutTheAgentShowsRanksMembersAndContextsLiveAndInADump(@TempDir Path control,
                                                                              @TempDir Path dumps) throws Exception {
        tour(Binding.MPJ_MULTICORE, control, dumps);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void handlesFallsBackToTheBindingsObjectsOfALiveJobWithoutTheAgent(@TempDir Path control) throws Exception {
        Files.createDirectories(control);
        Binding b = Binding.MPJ_MULTICORE;
        JobSpec spec = JobSpec.builder(b, 4, Tours.mainClass(b)).classPath(Tours.classPath(b)).jdwp(true)
                .controlDir(control).env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        try (Job job = Job.launch(spec)) {
            String address = Tours.addresses(job, b).get(0).toString();
            Tours.awaitPause(job, "created");
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            int exit = MpiLensCli.run(new String[] {"handles", "--attach", address, "--timeout", "60"}, new PrintStream(out, true, UTF_8),
                    new PrintStream(err, true, UTF_8), Map.of());
            String text = out.toString(UTF_8);
            assertEquals(0, exit, err.toString(UTF_8));
            assertEquals("mpilens: " + address + " runs without the mpilens agent: showing what the MPI binding's own"
                    + " objects hold, REDUCED INFORMATION", err.toString(UTF_8).strip());
            for (int rank = 0; rank < 4; rank++) {
                assertTrue(text.contains("rank " + rank + "/4  mpj  INITIALIZED  NO AGENT  @" + address), text);
            }
            assertEquals(4, text.split("REDUCED INFORMATION: no mpilens agent", -1).length - 1, text);
            assertTrue(text.contains("comm  Intracomm  MPI_COMM_WORLD   ctx 3/3/9          0/4   members 0,1,2,3"), text);
            for (String line : text.split("\n")) assertTrue(line.length() <= 80, "longer than 80 columns: " + line);
            Tours.awaitPause(job, "created");
            Tours.toEnd(job, "created");
        }
    }

    private static void tour(Binding b, Path control, Path dumps) throws Exception {
        Files.createDirectories(control);
        JobSpec spec = JobSpec.builder(b, 4, Tours.mainClass(b)).classPath(Tours.classPath(b)).jdwp(true)
                .controlDir(control).jvmOptions("-XX:+StartAttachListener")
                .env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        try (Job job = Job.launch(spec)) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, b));
            try {
                Tours.awaitPause(job, "created");
                // one suspended moment: read every JVM live, then dump every JVM, then resume
                List<List<AgentlessProcess>> perJvm = new ArrayList<>();
                List<Path> files = new ArrayList<>();
                for (JdiTargetReader r : readers) r.virtualMachine().suspend();
                try {
                    for (JdiTargetReader r : readers) perJvm.add(BindingObjects.read(r, r));
                    for (long pid : Tours.rankJvmPids(job)) {
                        files.add(HeapDumpTourTest.jcmdHeapDump(pid, dumps.resolve("pid" + pid + ".hprof")));
                    }
                } finally {
                    for (JdiTargetReader r : readers) r.virtualMachine().resume();
                }
                assertEquals(perJvm.size(), files.size(), "one dump per rank JVM");
                // each dump, read without the agent, holds exactly what one live JVM showed, field by field
                List<List<AgentlessProcess>> unmatched = new ArrayList<>();
                for (List<AgentlessProcess> j : perJvm) unmatched.add(withoutSource(j));
                for (Path f : files) {
                    List<AgentlessProcess> fromDump = withoutSource(Agentless.readDump(f, false, null).agentless());
                    assertTrue(unmatched.remove(fromDump), f.getFileName() + " read agentless equals no live read:\n"
                            + fromDump + "\nlive, not matched yet:\n" + unmatched);
                }
                cliShowsTheDumpAsReducedInformation(files.get(0));
                List<AgentlessProcess> live = new ArrayList<>();
                for (int jvm = 0; jvm < perJvm.size(); jvm++) {
                    if (b == Binding.OPENMPI) {
                        assertEquals(1, perJvm.get(jvm).size(), "one MPI process per Open MPI JVM");
                        live.add(withRank(perJvm.get(jvm).get(0), jvm)); // addresses come sorted by rank
                    } else {
                        live.addAll(perJvm.get(jvm));
                    }
                }
                for (String line : new AgentlessTable(false).lines(live)) System.out.println(line);
                assertEquals(4, live.size(), "4 MPI processes read without the agent");
                check(job, b, live);
                Tours.toFinalized(job, "created");
            } finally {
                Tours.disconnect(readers);
            }
            Tours.finish(job);
        }
    }

    /** {@code mpilens dump} falls back by itself: a note on stderr, the banner, exit 0; JSON marks it reduced. */
    private static void cliShowsTheDumpAsReducedInformation(Path dump) {
        String name = dump.getFileName().toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = MpiLensCli.run(new String[] {"dump", dump.toString()}, new PrintStream(out, true, UTF_8),
                new PrintStream(err, true, UTF_8), Map.of());
        String text = out.toString(UTF_8);
        assertEquals(0, exit, err.toString(UTF_8));
        assertEquals("mpilens: " + name + " holds no mpilens registry (the JVM ran without the agent): showing what"
                + " the MPI binding's own objects hold, REDUCED INFORMATION", err.toString(UTF_8).strip());
        assertTrue(text.contains("NO AGENT  @" + name), text);
        assertTrue(text.contains("  REDUCED INFORMATION: no mpilens agent ran in this JVM"), text);
        assertTrue(text.contains("MPI_COMM_WORLD"), text);
        for (String line : text.split("\n")) assertTrue(line.length() <= 80, "longer than 80 columns: " + line);

        out.reset();
        exit = MpiLensCli.run(new String[] {"dump", "--json", dump.toString()}, new PrintStream(out, true, UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, UTF_8), Map.of());
        String json = out.toString(UTF_8);
        assertEquals(0, exit);
        assertTrue(json.startsWith("{\"schema\":\"mpilens/1\",\"processes\":[],\"errors\":[],\"agentless\":[{\"source\":\""
                + name + "\",\"reduced\":true,\"missing\":[\"lifecycle\","), json);
        assertTrue(json.contains("\"name\":\"MPI_COMM_WORLD\""), json);
    }

    private static void check(Job job, Binding b, List<AgentlessProcess> live) {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (String line : job.linesStartingWith("MPILENS-EXPECT")) {
            Expectation e = Expectation.parse(line);
            if (!e.point().equals("created")) continue;
            AgentlessProcess p = live.stream().filter(x -> x.rank() == e.owner()).findFirst().orElseThrow(
                    () -> new AssertionError("no process of rank " + e.owner() + " among " + live));
            assertEquals(MpiState.INITIALIZED, p.mpiState(), "rank " + e.owner());
            assertEquals(Tours.mainClass(b).contains("openmpi") ? "openmpi" : "mpj", p.binding());
            String problem = b == Binding.OPENMPI ? openMpi(e, p) : mpj(e, p);
            if (problem == null) checked++;
            else if (!problem.isEmpty()) problems.add("rank " + e.owner() + ": " + problem + "\n   for " + e.text());
        }
        if (!problems.isEmpty()) fail(problems.size() + " differences:\n" + String.join("\n", problems));
        assertTrue(checked >= 4 * 6, "expectations checked: " + checked);
    }

    /** Every C handle the binding printed is the handle field of an object of that kind; null: checked, "": not applicable. */
    private static String openMpi(Expectation e, AgentlessProcess p) {
        String want = e.values().get("cHandle");
        if (want == null) return "";
        HandleKind kind = HandleKind.valueOf(e.kind());
        List<BindingObject> same = p.objects().stream()
                .filter(o -> o.kind() == kind && o.cHandle() != null && ("0x" + Long.toHexString(o.cHandle())).equals(want))
                .toList();
        if (same.isEmpty()) return "no " + kind + " with C handle " + want;
        BindingObject o = same.get(0);
        if (o.nullHandle()) return "C handle " + want + " shown as the null handle";
        if (e.line() == 0 && !"MPI_COMM_WORLD".equals(o.name())) return "COMM_WORLD not named: " + o;
        if (kind == HandleKind.DATATYPE && !e.values().get("extent").equals(o.details().get("extent"))) {
            return "extent " + o.details().get("extent") + ", binding said " + e.values().get("extent");
        }
        return null;
    }

    /** Ranks, sizes and world-rank members of communicators and groups; sizes and extents of datatypes. */
    private static String mpj(Expectation e, AgentlessProcess p) {
        HandleKind kind = HandleKind.valueOf(e.kind());
        Map<String, String> v = e.values();
        switch (kind) {
            case COMMUNICATOR:
            case GROUP: {
                boolean found = p.objects().stream().anyMatch(o -> o.kind() == kind
                        && String.valueOf(o.rank()).equals(v.get("rank")) && String.valueOf(o.size()).equals(v.get("size"))
                        && join(o.members()).equals(v.get("members")) && (kind != HandleKind.COMMUNICATOR
                        || o.contexts().size() == 3) && (e.line() != 0 || "MPI_COMM_WORLD".equals(o.name()))
                        && (!v.containsKey("dims") || v.get("dims").equals(o.details().get("dims")))
                        && (!v.containsKey("edges") || v.get("edges").equals(o.details().get("edges"))));
                return found ? null : "no " + kind + " with rank " + v.get("rank") + ", size " + v.get("size")
                        + ", members " + v.get("members") + (v.containsKey("dims") ? ", dims " + v.get("dims") : "");
            }
            case DATATYPE: {
                boolean found = p.objects().stream().anyMatch(o -> o.kind() == kind
                        && v.get("typeSize").equals(o.details().get("typeSize"))
                        && v.get("extent").equals(o.details().get("extent"))
                        && v.get("lowerBound").equals(o.details().get("lowerBound")));
                return found ? null : "no DATATYPE of size " + v.get("typeSize") + ", extent " + v.get("extent");
            }
            case REQUEST: {
                if (!"true".equals(v.get("persistent"))) return "";
                boolean found = p.objects().stream().anyMatch(o -> o.kind() == kind && o.type().equals("Prequest")
                        && v.get("peer").equals(o.details().get("peer")) && v.get("tag").equals(o.details().get("tag")));
                return found ? null : "no persistent request to " + v.get("peer") + " tag " + v.get("tag");
            }
            default:
                return "";
        }
    }

    private static AgentlessProcess withRank(AgentlessProcess p, int rank) {
        if (p.rank() >= 0) {
            assertEquals(rank, p.rank(), "rank read from the process environment");
            return p;
        }
        return new AgentlessProcess(p.source(), p.binding(), rank, p.worldSize(), "test", p.mpiState(), p.objects(),
                p.notRead());
    }

    private static List<AgentlessProcess> withoutSource(List<AgentlessProcess> ps) {
        List<AgentlessProcess> out = new ArrayList<>();
        for (AgentlessProcess p : ps) {
            out.add(new AgentlessProcess("", p.binding(), p.rank(), p.worldSize(), p.rankFrom(), p.mpiState(),
                    sorted(p.objects()), p.notRead()));
        }
        return out;
    }

    /** Instances come in heap order live and in dump order post-mortem: compare as sorted lists. */
    private static List<BindingObject> sorted(List<BindingObject> objects) {
        List<BindingObject> out = new ArrayList<>(objects);
        out.sort(java.util.Comparator.comparing(Object::toString));
        return out;
    }

    private static String join(List<Integer> values) {
        StringBuilder b = new StringBuilder();
        for (int x : values) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }
}
