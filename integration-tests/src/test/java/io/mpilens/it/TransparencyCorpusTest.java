package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.launch.OutputLine;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * The agent is transparent: every program of the corpus ({@code examples/*}'s {@code corpus}
 * packages: real MPI programs calling every handle-creating, freeing and completing method of
 * their binding, with the edge cases) exits and prints exactly as without the agent — with the
 * default options, with {@code requestStacks=true}, and with the agent attached late — and the
 * agent's health stays clean (no internal error, no untracked event) in the live snapshot and in
 * a heap dump taken at the end. Runs on 4 ranks under MPI_ERRORS_ARE_FATAL.
 */
class TransparencyCorpusTest {
    private static final int NP = 4;
    private static final String NOT_IN_BINDING = "corpus: not in this binding:";

    /**
     * Lines that are the agent's or the debugger's, not the program's: the JVM's JDWP listener
     * announcement (only the runs with a debugger port print it), the JDWP agent's transport
     * errors when the test's debugger connection closes as the JVM exits (seen once, four times
     * {@code ERROR: transport error 202: send failed: Broken pipe} from an MPJ multicore JVM), and
     * the agent's own {@code mpilens:} lines (the attach tool, verbose reports), and the JVM's
     * warning when this test's own heap dump ({@code jcmd GC.heap_dump} at the "end" pause) meets a
     * thread in a JNI critical section (seen once, from an MPJ niodev rank:
     * {@code OpenJDK 64-Bit Server VM warning: GC locker is held; pre-heapdump GC was skipped}).
     * Nothing else is dropped.
     */
    static final Predicate<String> NOT_THE_PROGRAMS =
            l -> l.startsWith("Listening for transport dt_socket at address") || l.startsWith("mpilens:")
                    || l.startsWith("ERROR: transport error 202:")
                    || l.endsWith("warning: GC locker is held; pre-heapdump GC was skipped");

    /**
     * MPJ Express niodev's starter, not the program: now and then, with or without the agent, it
     * prints {@code EXIT@Ping#} and a {@code NoSuchElementException} from its
     * {@code runtime.starter.IOMessagesThread} as the job ends (seen in the runs without the agent).
     */
    static final Predicate<String> MPJ_STARTER_CHATTER = l -> l.equals("EXIT@Ping#");

    @TestFactory
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    Stream<DynamicContainer> everyProgramBehavesAlikeWithAndWithoutTheAgent() {
        return Stream.of(Binding.OPENMPI, Binding.MPJ_MULTICORE, Binding.MPJ_NIODEV).map(b -> {
            List<String> programs;
            try {
                programs = programs(b);
            } catch (AssertionError e) {
                return DynamicContainer.dynamicContainer(b.name(), Stream.of(DynamicTest.dynamicTest("corpus", () -> {
                    throw e;
                })));
            }
            return DynamicContainer.dynamicContainer(b.name(), programs.stream().map(main ->
                    DynamicTest.dynamicTest(simpleName(main), () -> checkProgram(b, main))));
        });
    }

    /** The corpus classes of a binding, from the compiled classes (a binding with none is a failure). */
    static List<String> programs(Binding b) {
        String pkg = b == Binding.OPENMPI ? "io.mpilens.examples.openmpi.corpus" : "io.mpilens.examples.mpj.corpus";
        Path dir = Tours.ROOT.resolve(b == Binding.OPENMPI ? "examples/openmpi" : "examples/mpj")
                .resolve("target/classes").resolve(pkg.replace('.', '/'));
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().collect(Collectors.toList())) {
                String name = f.getFileName().toString();
                if (!name.endsWith(".class") || name.contains("$")) continue;
                String cls = pkg + "." + name.substring(0, name.length() - ".class".length());
                if (hasMain(f)) out.add(cls);
            }
        } catch (IOException e) {
            throw new AssertionError("no corpus programs found in " + dir + ": " + e, e);
        }
        if (out.isEmpty()) throw new AssertionError("no corpus programs found in " + dir);
        return out;
    }

    /** Whether a class file declares {@code main(String[])} (read from its bytes: the binding is not on this class path). */
    private static boolean hasMain(Path classFile) throws IOException {
        String bytes = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
        return bytes.contains("main") && bytes.contains("([Ljava/lang/String;)V");
    }

    private static void checkProgram(Binding b, String main) throws Exception {
        Path work = Files.createTempDirectory("mpilens-corpus-");
        try {
            long t0 = System.nanoTime();
            Run base = run(b, main, Variant.WITHOUT_AGENT, work.resolve("without"));
            assertEquals(0, base.exit, "without the agent, " + main + " must run cleanly; output:\n" + base.tail());
            for (String l : base.stdout) {
                if (l.startsWith(NOT_IN_BINDING)) System.out.println(b + " " + l);
            }
            List<String> problems = new ArrayList<>();
            for (Variant v : new Variant[] {Variant.AGENT, Variant.REQUEST_STACKS, Variant.LATE_ATTACH}) {
                Run with = run(b, main, v, work.resolve(v.name().toLowerCase(Locale.ROOT)));
                problems.addAll(compare(base, with, v));
                problems.addAll(with.healthProblems);
            }
            System.out.printf(Locale.ROOT, "corpus %-13s %-34s %3d stdout lines, 4 runs, %.1f s%n", b, simpleName(main),
                    base.stdout.size(), (System.nanoTime() - t0) / 1e9);
            if (!problems.isEmpty()) fail(b + " " + main + ":\n" + String.join("\n", problems));
        } finally {
            deleteTree(work);
        }
    }

    enum Variant {
        WITHOUT_AGENT, AGENT, REQUEST_STACKS, LATE_ATTACH
    }

    /** One launch: its exit code, its output by stream, and what the agent's health said. */
    static final class Run {
        int exit;
        List<String> stdout = new ArrayList<>();
        List<String> stderr = new ArrayList<>();
        List<String> all = new ArrayList<>();
        final List<String> healthProblems = new ArrayList<>();

        String tail() {
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        }
    }

    private static Run run(Binding b, String main, Variant v, Path control) throws Exception {
        Files.createDirectories(control);
        JobSpec.Builder spec = JobSpec.builder(b, NP, main).classPath(Tours.classPath(b))
                .env("MPILENS_JOBS", control.resolve("jobs").toString());
        boolean agentAtStart = v == Variant.AGENT || v == Variant.REQUEST_STACKS;
        spec.agentJar(agentAtStart ? Tours.AGENT : null)
                .agentOptions(v == Variant.REQUEST_STACKS ? "requestStacks=true" : null);
        boolean paused = v == Variant.AGENT || v == Variant.LATE_ATTACH;
        if (paused) spec.controlDir(control).jvmOptions("-XX:+StartAttachListener");
        if (v == Variant.AGENT) spec.jdwp(true);
        Run out = new Run();
        try (Job job = Job.launch(spec.build())) {
            if (v == Variant.AGENT) {
                List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, b));
                try {
                    awaitPause(job, "start");
                    job.release("start");
                    awaitPause(job, "end");
                    for (ProcessSnapshot p : Tours.snapshot(readers, false)) health(out, "live snapshot", p);
                    dumpHealth(job, out, control);
                } finally {
                    Tours.disconnect(readers);
                }
                job.release("end");
            } else if (v == Variant.LATE_ATTACH) {
                awaitPause(job, "start");
                for (long pid : Tours.rankJvmPids(job)) attach(pid, out);
                job.release("start");
                awaitPause(job, "end");
                dumpHealth(job, out, control);
                job.release("end");
            }
            ended(job, out);
        }
        return out;
    }

    /** Waits for the job's end: its exit code and the program's lines (not the agent's, the debugger's or MPJ's starter's) into {@code out}. */
    static void ended(Job job, Run out) throws Exception {
        out.exit = job.waitFor(Tours.START);
        for (OutputLine l : job.outputLines()) {
            out.all.add(l.toString());
            if (NOT_THE_PROGRAMS.test(l.text()) || MPJ_STARTER_CHATTER.test(l.text())) continue;
            (l.stderr() ? out.stderr : out.stdout).add(l.text());
        }
        out.stderr = withoutStarterTraces(out.stderr);
    }

    /**
     * Drops each stack trace (a line and the {@code \tat} lines under it) thrown in MPJ Express's
     * starter's {@code IOMessagesThread} (the niodev chatter above). Not every trace with a starter
     * frame: a multicore rank's thread is started by {@code runtime.starter.MulticoreStarter}, so an
     * exception a rank throws has one too, and it is the program's.
     */
    static List<String> withoutStarterTraces(List<String> lines) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            int end = i + 1;
            while (end < lines.size() && (lines.get(end).startsWith("\tat ") || lines.get(end).startsWith("\t..."))) end++;
            List<String> block = lines.subList(i, end);
            boolean starters = end > i + 1 && block.stream().anyMatch(l -> l.startsWith("\tat runtime.starter.IOMessagesThread"));
            if (!starters) out.addAll(block);
            i = end;
        }
        return out;
    }

    /** Exit code and both streams as multisets (ranks interleave; each rank's own lines are deterministic). */
    static List<String> compare(Run base, Run with, Object v) {
        List<String> problems = new ArrayList<>();
        if (with.exit != base.exit) {
            problems.add(v + ": exit code " + with.exit + " instead of " + base.exit + "; output:\n" + with.tail());
        }
        difference(v, "stdout", base.stdout, with.stdout, problems);
        difference(v, "stderr", base.stderr, with.stderr, problems);
        if (!problems.isEmpty() && with.exit == base.exit) problems.add("  output with the agent:\n" + with.tail());
        return problems;
    }

    private static void difference(Object v, String stream, List<String> base, List<String> with, List<String> out) {
        List<String> missing = new ArrayList<>(base);
        List<String> extra = new ArrayList<>();
        for (String l : with) {
            if (!missing.remove(l)) extra.add(l);
        }
        if (missing.isEmpty() && extra.isEmpty()) return;
        Collections.sort(missing);
        Collections.sort(extra);
        out.add(v + ": " + stream + " differs; only without the agent: " + missing + "; only with it: " + extra);
    }

    private static void health(Run out, String where, ProcessSnapshot p) {
        String who = where + " of rank " + p.rank() + ": ";
        if (p.agentHealth().internalErrors() != 0) {
            out.healthProblems.add(who + p.agentHealth().internalErrors() + " internal errors, last: "
                    + p.agentHealth().lastError());
        }
        if (p.agentHealth().untrackedEvents() != 0) {
            out.healthProblems.add(who + p.agentHealth().untrackedEvents() + " untracked events");
        }
    }

    /** A heap dump of every rank JVM at the "end" pause (after MPI_Finalize), decoded: the same health. */
    private static void dumpHealth(Job job, Run out, Path dir) throws Exception {
        List<Long> pids = Tours.rankJvmPids(job);
        assertFalse(pids.isEmpty(), "rank JVMs of " + job.spec().mainClass());
        int ranks = 0;
        for (long pid : pids) {
            Path dump = HeapDumpTourTest.jcmdHeapDump(pid, dir.resolve("rank-pid" + pid + ".hprof"));
            try {
                for (ProcessSnapshot p : HeapDumps.read(dump)) {
                    health(out, "heap dump", p);
                    ranks++;
                }
            } finally {
                Files.deleteIfExists(dump);
            }
        }
        if (ranks != NP) out.healthProblems.add("heap dumps at 'end' hold " + ranks + " MPI processes, not " + NP);
    }

    private static void awaitPause(Job job, String point) throws Exception {
        job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + point), NP, Tours.START);
    }

    /** {@code java -jar mpilens-agent.jar attach PID}: the late attach, with default options. */
    private static void attach(long pid, Run out) throws IOException, InterruptedException {
        Path log = Files.createTempFile("mpilens-attach-", ".log");
        try {
            Process p = new ProcessBuilder("java", "-jar", Tours.AGENT.toString(), "attach", Long.toString(pid))
                    .redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            if (!done) p.destroyForcibly();
            String said = Files.readString(log, StandardCharsets.UTF_8);
            if (!done || p.exitValue() != 0) out.healthProblems.add("late attach to pid " + pid + " failed: " + said);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String simpleName(String cls) {
        return cls.substring(cls.lastIndexOf('.') + 1);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Collections.reverseOrder()).collect(Collectors.toList())) Files.deleteIfExists(p);
        }
    }
}
