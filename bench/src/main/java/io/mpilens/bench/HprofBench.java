package io.mpilens.bench;

import io.mpilens.headless.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long reading the mpilens registry from a heap dump of at least 1 GB takes, against reading
 * the file with {@code cat > /dev/null} and against two general HPROF libraries finding the same
 * registry root (Shark, gridkit's fast mode) in the same run, and how much memory each needs.
 * Each read runs in a fresh JVM ({@link HeapDumpDecode}, on the application JDK like
 * {@code mpilens dump}); cat and the readers alternate, the page cache is warm (one cat first).
 */
public final class HprofBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run hprof [--dump PATH] [--java JAVA] [--rounds N] [--others N] [--objects N] [--handles N]",
            "  --dump     decode this dump; without it, a target JVM writes one to a temporary file",
            "             (deleted afterwards) of --handles live handles and --objects ballast objects",
            "  --java     the JVM of the target and of the decodes (default: java, the application JDK)",
            "  --rounds   measured rounds of cat and mpilens's decode (default 5)",
            "  --others   of them, rounds that also run shark-graph and gridkit's hprof-heap (default 2; 0: none)",
            "  --objects  ballast objects of the generated dump (default 15000000: about 1.2 GB)",
            "  --handles  live handles in its registry (default 10000)");
    /** From the issue: within 2x of reading the file, 0.5 s per GB warm, 256 MB peak RSS. */
    private static final double GOAL_RATIO = 2;
    private static final double GOAL_SECONDS_PER_GB = 0.5;
    private static final long GOAL_RSS_MIB = 256;
    private static final double GOAL_VS_SHARK = 5;

    private HprofBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String given = args.string("--dump", null);
        String java = args.string("--java", "java");
        int rounds = Math.max(1, args.integer("--rounds", 5));
        int others = args.integer("--others", 2);
        int objects = args.integer("--objects", 15_000_000);
        int handles = args.integer("--handles", 10_000);
        args.done();

        String loadBefore = Machine.loadAverage();
        Path dump;
        Path made = null;
        int expectedHandles = -1;
        if (given != null) {
            dump = Path.of(given);
            if (!Files.isRegularFile(dump)) throw new IllegalArgumentException("no such dump: " + dump);
        } else {
            made = Files.createTempDirectory("mpilens-hprof-bench");
            dump = made.resolve("ballast.hprof");
            System.out.printf(Locale.ROOT, "writing a dump of %,d handles and %,d ballast objects (%s) ...%n", handles,
                    objects, java);
            Workspace ws = Workspace.detect();
            try (TargetJvm target = TargetJvm.start(java, List.of(), ws.targetClassPath(),
                    HeapDumpTarget.class.getName(), List.of(Integer.toString(handles), Integer.toString(objects),
                            dump.toString()), HeapDumpTarget.READY, Duration.ofMinutes(5))) {
                System.out.println(target.readyLine());
            }
            expectedHandles = handles;
        }
        try {
            run(dump, java, rounds, others, expectedHandles, loadBefore);
        } finally {
            if (made != null) {
                Files.deleteIfExists(dump);
                Files.deleteIfExists(made);
            }
        }
    }

    /** The readers a run measures, in the order of a round; mpilens first. */
    private static final String[] READERS = {"mpilens", "mpilens-2t", "mpilens-read", "shark", "gridkit"};

    private static void run(Path dump, String java, int rounds, int others, int expectedHandles, String loadBefore)
            throws Exception {
        long bytes = Files.size(dump);
        double gb = bytes / 1e9;
        cat(dump); // warms the page cache
        Samples cat = new Samples();
        Map<String, Samples> time = new HashMap<>();
        Map<String, Samples> process = new HashMap<>();
        Map<String, Samples> cpu = new HashMap<>();
        Map<String, Long> peakKiB = new HashMap<>();
        Map<String, String> found = new HashMap<>();
        for (String reader : READERS) {
            time.put(reader, new Samples());
            process.put(reader, new Samples());
            cpu.put(reader, new Samples());
        }
        for (int i = 0; i < rounds; i++) {
            cat.add(cat(dump));
            for (String reader : READERS) {
                if (!reader.startsWith("mpilens") && i >= others) continue;
                long t0 = System.nanoTime();
                Map<String, String> r = decode(java, reader, dump);
                process.get(reader).add((System.nanoTime() - t0) / 1e6);
                cpu.get(reader).add(Long.parseLong(r.get("cpuNanos")) / 1e6);
                time.get(reader).add(Long.parseLong(r.get("nanos")) / 1e6);
                peakKiB.merge(reader, Long.parseLong(r.get("hwmKiB")), Math::max);
                String what = reader.startsWith("mpilens") ? "root=" + r.get("root") + " handles=" + r.get("handles")
                        + " passes=" + r.get("passes") : "root=" + r.get("root");
                String before = found.putIfAbsent(reader, what);
                if (before != null && !before.equals(what)) {
                    throw new IllegalStateException(reader + " disagrees with itself: " + before + " vs " + what);
                }
            }
        }
        String root = found.get("mpilens").split(" ")[0];
        for (Map.Entry<String, String> e : found.entrySet()) {
            if (!e.getValue().startsWith(root + " ") && !e.getValue().equals(root)) {
                throw new IllegalStateException(e.getKey() + " found " + e.getValue() + ", mpilens " + root);
            }
        }
        String handles = found.get("mpilens").replaceAll(".*handles=(\\d+).*", "$1");
        if (expectedHandles >= 0 && Integer.parseInt(handles) != expectedHandles) {
            throw new IllegalStateException("decoded " + handles + " handles, the target held " + expectedHandles);
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "HprofBench: %s, %,d bytes; %d rounds (shark, gridkit: %d) of cat and each"
                + " reader alternating, warm page cache; each read a fresh JVM (%s)%n", dump.getFileName(), bytes,
                rounds, Math.min(others, rounds), java);
        System.out.printf("all readers found the registry root %s; mpilens decoded %s%n", root.substring(5),
                found.get("mpilens").substring(root.length() + 1));
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after%n%n", Machine.cpus(),
                loadBefore, Machine.loadAverage());
        ResultTable t = new ResultTable(1, "measurement", "best ms", "median ms", "/ cat (best)", "peak RSS MiB");
        t.row("cat FILE > /dev/null", ResultTable.ms(cat.min()), ResultTable.ms(cat.median()), "1.000", "-");
        for (String reader : READERS) {
            Samples s = time.get(reader);
            if (s.count() == 0) continue;
            String name = reader.equals("mpilens") ? "mpilens: open to snapshot"
                    : reader.equals("mpilens-2t") ? "mpilens, 2 threads (-Dmpilens.hprof.threads=2)"
                    : reader.equals("mpilens-read") ? "mpilens, reads (-Dmpilens.hprof.mmap=false)"
                    : reader.equals("shark") ? "shark-graph 2.14: root and its references"
                    : "gridkit hprof-heap 0.16 fast: root and its references";
            t.row(name, ResultTable.ms(s.min()), ResultTable.ms(s.median()), ResultTable.ratio(s.min() / cat.min()),
                    peakKiB.get(reader) / 1024);
            t.row("  whole JVM", ResultTable.ms(process.get(reader).min()),
                    ResultTable.ms(process.get(reader).median()), "", "");
            t.row("  CPU of the JVM, all threads", ResultTable.ms(cpu.get(reader).min()),
                    ResultTable.ms(cpu.get(reader).median()), "", "");
        }
        System.out.print(t.render());
        System.out.println();

        Samples ours = time.get("mpilens");
        double ratio = ours.min() / cat.min();
        double perGb = ours.min() / 1000 / gb;
        long rssMiB = peakKiB.get("mpilens") / 1024;
        System.out.printf(Locale.ROOT, "goal within %.0fx of cat: %s (%.2fx best, %.2fx median)%n", GOAL_RATIO,
                ratio <= GOAL_RATIO ? "MET" : "NOT MET", ratio, ours.median() / cat.median());
        System.out.printf(Locale.ROOT, "goal <= %.1f s per GB warm: %s (%.2f s per GB best)%n", GOAL_SECONDS_PER_GB,
                perGb <= GOAL_SECONDS_PER_GB ? "MET" : "NOT MET", perGb);
        System.out.printf(Locale.ROOT, "goal peak RSS <= %d MiB: %s (%d MiB)%n", GOAL_RSS_MIB,
                rssMiB <= GOAL_RSS_MIB ? "MET" : "NOT MET", rssMiB);
        Samples two = time.get("mpilens-2t");
        System.out.printf(Locale.ROOT, "(first pass on 2 threads, not the default: %.2fx of cat best, %.2f s per GB;"
                + " median %.2fx of the default's, CPU median %.2fx)%n", two.min() / cat.min(), two.min() / 1000 / gb,
                two.median() / ours.median(), cpu.get("mpilens-2t").median() / cpu.get("mpilens").median());
        if (time.get("shark").count() > 0) {
            double x = time.get("shark").median() / ours.median();
            System.out.printf(Locale.ROOT, "goal >= %.0fx faster than shark: %s (%.1fx, medians)%n", GOAL_VS_SHARK,
                    x >= GOAL_VS_SHARK ? "MET" : "NOT MET", x);
        }
        if (time.get("gridkit").count() > 0) {
            double x = time.get("gridkit").median() / ours.median();
            System.out.printf(Locale.ROOT, "goal faster than gridkit's fast mode: %s (%.2fx, medians)%n",
                    x > 1 ? "MET" : "NOT MET", x);
        }
    }

    /** Wall milliseconds of {@code cat FILE > /dev/null}. */
    private static double cat(Path dump) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("cat", dump.toString()).redirectOutput(new File("/dev/null"))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (p.waitFor() != 0) throw new IOException("cat " + dump + " failed");
        return (System.nanoTime() - t0) / 1e6;
    }

    /** The key=value words of the decode's result line. */
    private static Map<String, String> decode(String java, String reader, Path dump)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                HeapDumpDecode.class.getName(), reader, dump.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        List<String> output = new ArrayList<>();
        String result = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.add(line);
                if (line.startsWith(HeapDumpDecode.RESULT)) result = line;
            }
        }
        if (p.waitFor() != 0 || result == null) {
            throw new IllegalStateException("the decode failed: " + String.join(" ", cmd) + "\n  "
                    + String.join("\n  ", output));
        }
        Map<String, String> out = new HashMap<>();
        for (String word : result.split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) out.put(word.substring(0, eq), word.substring(eq + 1));
        }
        return out;
    }
}
