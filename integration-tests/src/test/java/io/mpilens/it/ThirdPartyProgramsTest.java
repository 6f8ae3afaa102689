package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.launch.MpiEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The agent is transparent to programs written without it in mind, by the bindings' own authors:
 * <ul>
 * <li>MPJ Express's own test programs (its source package's {@code test/mpi}: the IBM MPI test
 * cases ported to mpiJava; {@code scripts/setup-env} extracts them to {@code .deps/mpj-tests}),
 * each on MPJ Express multicore with 2 ranks. They live in packages {@code mpi.pt2pt},
 * {@code mpi.ccl}, … beside the binding's own {@code mpi} package, which the agent weaves.</li>
 * <li>Open MPI's own Java examples, {@code Hello} and {@code Ring}, on 4 ranks.</li>
 * </ul>
 * Each is compiled here against its binding and run without the agent and with it (default
 * options, and {@code verbose=true}, whose one line says the agent was active): the same exit code
 * and the same output (as multisets), and no exception in either run.
 *
 * <p>The MPJ Express programs are named here, not found: the ones that end cleanly on MPJ Express
 * 0.44's multicore device with 2 ranks, with the same output twice (found by running every program
 * of the seven folders without the agent; left out, each for its reason, in {@link #LEFT_OUT}). A
 * program named here that fails or hangs without the agent fails the test: the binding or the
 * machine changed.
 */
class ThirdPartyProgramsTest {
    private static final int NP = 2;

    /** Folders of {@code test/mpi} compiled, and the programs run, as {@code folder/Class}. */
    private static final List<String> FOLDERS = List.of("pt2pt", "ccl", "comm", "group", "topo", "dtyp", "env");
    static final List<String> PROGRAMS = List.of(
            "pt2pt/BreakANYSRC", "pt2pt/Bsend_test2", "pt2pt/BufferTest1", "pt2pt/BufferTest3", "pt2pt/BufferTest6",
            "pt2pt/Isend_rendez", "pt2pt/Send_rendez", "pt2pt/Send_rendez_fairness", "pt2pt/SimpleB",
            "pt2pt/SimpleBsend", "pt2pt/SimpleNB", "pt2pt/Ssend_test1", "pt2pt/TestSendInit", "pt2pt/bsend_test1",
            "pt2pt/buffer", "pt2pt/cancel1", "pt2pt/intertwined", "pt2pt/iprobe", "pt2pt/isend",
            "pt2pt/non_overtaking", "pt2pt/probe", "pt2pt/rsend", "pt2pt/rsend2", "pt2pt/sendrecv",
            "pt2pt/sendrecv_rep", "pt2pt/seq", "pt2pt/ssend", "pt2pt/start", "pt2pt/start2", "pt2pt/startall",
            "pt2pt/test1", "pt2pt/test2", "pt2pt/test3", "pt2pt/testall", "pt2pt/testany", "pt2pt/testsome",
            "pt2pt/waitall", "pt2pt/waitall2", "pt2pt/waitany", "pt2pt/waitnull", "pt2pt/waitsome", "pt2pt/wildcard",
            "ccl/allgather", "ccl/allgatherv", "ccl/allreduce", "ccl/allreduce_maxminloc", "ccl/alltoall",
            "ccl/alltoallv", "ccl/bcast", "ccl/gather", "ccl/gatherv", "ccl/reduce", "ccl/reduce2",
            "ccl/reduce_scatter", "ccl/scan", "ccl/scatter", "comm/CommTest", "comm/comm_test", "comm/commdup",
            "comm/compare", "comm/intercomm", "comm/intercomm_test", "comm/split", "comm/split2", "group/Group_com",
            "group/Group_diff", "group/Group_excl", "group/Group_incl", "group/Group_intersect", "group/Group_self",
            "group/Group_tranks", "group/Group_union", "group/group", "group/range", "topo/cart", "topo/cart_topo",
            "topo/dimscreate", "topo/graph", "topo/map", "topo/sub", "topo/sub2", "dtyp/DtypTest", "dtyp/lbub",
            "dtyp/lbub2", "dtyp/pack", "dtyp/type_size", "dtyp/zero1", "dtyp/zero5", "env/ErrStreamPrinter",
            "env/InputTester", "env/initialized", "env/procname");
    /**
     * Programs of those folders not run, and why: found without the agent (np 2, twice), except the
     * partial-line printers, which a CI run found.
     */
    static final List<String> LEFT_OUT = List.of(
            "pt2pt/Isend_eager: does not end within 40 s",
            "pt2pt/BufferBench1, pt2pt/BufferRoller, pt2pt/Send_eager_fairness: 11-23 s each",
            "pt2pt/BufferBench2, ccl/barrier, env/EnvTester, env/wtime: print times, which differ from run to run",
            "env/abort: the two ranks' lines interleave within a line",
            "pt2pt/getcount, ccl/scatterv, dtyp/Contiguous, dtyp/Indexed, dtyp/Vector, dtyp/hvec: print parts of a line"
                    + " (System.out.print) while the other rank prints; both ranks are threads writing one System.out,"
                    + " so how their lines mix depends on thread timing, which any change of speed moves (seen once in"
                    + " CI: Contiguous, in the run with the agent, 'rparams[0]=0.0<tab>Send Completed')",
            "pt2pt/Isend_rendez_fairness: needs more than 2 ranks",
            "pt2pt/NonBlocking, NonBlockingObj, req_test, syncbug: in no package, not mpi.pt2pt",
            "pt2pt/dacian_test, pt2pt/isend2: no main method");

    @TestFactory
    Stream<DynamicTest> mpjExpressOwnTestProgramsBehaveAlikeWithAndWithoutTheAgent() throws Exception {
        MpiEnvironment env = MpiEnvironment.detect();
        env.require(Binding.MPJ_MULTICORE);
        Path src = sources();
        List<Path> files = new ArrayList<>();
        for (String f : FOLDERS) {
            try (Stream<Path> s = Files.list(src.resolve("mpi").resolve(f))) {
                files.addAll(s.filter(x -> x.toString().endsWith(".java")).sorted().toList());
            }
        }
        Path classes = compiled("MPJ Express's test programs", files, env.mpjHome().resolve("lib/mpj.jar"));
        System.out.println("mpj-tests: " + PROGRAMS.size() + " programs; left out: " + String.join("; ", LEFT_OUT));
        return PROGRAMS.stream().map(p -> DynamicTest.dynamicTest(p, () ->
                check(Binding.MPJ_MULTICORE, NP, classes, "mpi." + p.replace('/', '.'), p)));
    }

    /**
     * Open MPI's own Java examples ({@code examples/Hello.java} and {@code Ring.java} of its source,
     * which {@code scripts/setup-env} copies to {@code .deps/openmpi/examples}), 4 ranks under
     * {@code mpirun}: the same exit code and output with and without the agent.
     */
    @TestFactory
    Stream<DynamicTest> openMpiOwnExamplesBehaveAlikeWithAndWithoutTheAgent() throws Exception {
        MpiEnvironment env = MpiEnvironment.detect();
        env.require(Binding.OPENMPI);
        Path dir = env.ompiJar().getParent().resolve("examples");
        if (!Files.isRegularFile(dir.resolve("Ring.java"))) {
            fail("Open MPI's Java examples are not in " + dir + ": run scripts/setup-env (it copies them from the source"
                    + " package of the installed Open MPI), then '. .deps/env.sh'");
        }
        List<Path> files = List.of(dir.resolve("Hello.java"), dir.resolve("Ring.java"));
        Path classes = compiled("Open MPI's Java examples", files, env.ompiJar());
        return Stream.of("Hello", "Ring").map(p -> DynamicTest.dynamicTest(p, () ->
                check(Binding.OPENMPI, 4, classes, p, "ompi-examples/" + p)));
    }

    /** {@code files} compiled against {@code binding} into a new directory under {@code target}. */
    private static Path compiled(String what, List<Path> files, Path binding) throws IOException {
        Path target = Tours.ROOT.resolve("integration-tests/target");
        Files.createDirectories(target);
        Path out = Files.createTempDirectory(target, "third-party-classes-");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "the tests run on a JDK, not a JRE: no system Java compiler");
        // the rank JVMs are the java on the PATH (17 here), as for the examples of this repository
        List<String> args = new ArrayList<>(List.of("-nowarn", "-encoding", "ISO-8859-1", "-proc:none", "--release", "17",
                "-cp", binding.toString(), "-d", out.toString()));
        for (Path f : files) args.add(f.toString());
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        int code = javac.run(null, said, said, args.toArray(String[]::new));
        assertEquals(0, code, what + " do not compile against " + binding + ":\n"
                + said.toString(java.nio.charset.StandardCharsets.UTF_8));
        return out;
    }

    /** {@code $MPILENS_MPJ_TESTS}, else {@code .deps/mpj-tests}; fails saying how to get them. */
    private static Path sources() {
        String named = System.getenv("MPILENS_MPJ_TESTS");
        Path dir = named != null && !named.isBlank() ? Paths.get(named) : Tours.ROOT.resolve(".deps/mpj-tests");
        if (!Files.isDirectory(dir.resolve("mpi/pt2pt"))) {
            fail("MPJ Express's test programs are not in " + dir + ": run scripts/setup-env (it extracts them from the"
                    + " source package of the installed libmpj-java), then '. .deps/env.sh'");
        }
        return dir;
    }

    private static void check(Binding binding, int np, Path classes, String main, String label) throws Exception {
        long t0 = System.nanoTime();
        TransparencyCorpusTest.Run base = run(binding, np, classes, main, false);
        assertEquals(0, base.exit, "without the agent, " + main + " must end cleanly; output:\n" + base.tail());
        // MPJ Express multicore exits with 0 also when a rank threw (the class not found, a bad argument)
        assertTrue(base.all.stream().noneMatch(l -> l.contains("\tat ")), "without the agent, " + main
                + " must end without an exception; output:\n" + base.tail());
        TransparencyCorpusTest.Run with = run(binding, np, classes, main, true);
        assertTrue(with.all.stream().anyMatch(l -> l.contains("mpilens: agent ") && l.contains(" watching ")),
                "the agent was active in the run with it:\n" + with.tail());
        List<String> problems = TransparencyCorpusTest.compare(base, with, "with the agent");
        if (with.all.stream().anyMatch(l -> l.contains("\tat "))) problems.add("with the agent, an exception:\n" + with.tail());
        System.out.printf(Locale.ROOT, "third-party %-28s %3d stdout lines, 2 runs, %.1f s%n", label, base.stdout.size(),
                (System.nanoTime() - t0) / 1e9);
        if (!problems.isEmpty()) fail(main + ":\n" + String.join("\n", problems));
    }

    private static TransparencyCorpusTest.Run run(Binding binding, int np, Path classes, String main, boolean agent)
            throws Exception {
        Path jobs = Files.createTempDirectory("mpilens-third-party-");
        try {
            JobSpec.Builder spec = JobSpec.builder(binding, np, main).classPath(List.of(classes))
                    .env("MPILENS_JOBS", jobs.toString());
            if (agent) spec.agentJar(Tours.AGENT).agentOptions("verbose=true");
            TransparencyCorpusTest.Run out = new TransparencyCorpusTest.Run();
            try (Job job = Job.launch(spec.build())) {
                TransparencyCorpusTest.ended(job, out);
            }
            return out;
        } finally {
            TransparencyCorpusTest.deleteTree(jobs);
        }
    }
}
