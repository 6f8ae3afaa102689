package io.mpilens.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The agent's own share of a program's CPU, from async-profiler's CPU-time samples ({@code ctimer},
 * 1 ms, every thread) of launches with the agent: of the samples of the application's threads (a
 * stack with a frame of the program: its main class's package), those with a frame of the agent
 * ({@code io.mpilens.agent.} classes, inlined frames included) anywhere on the stack. A timer compared
 * launch against launch cannot tell 1 % apart on a machine whose launches spread by 20-100 %; a share
 * of samples can, because it compares samples of the same launch. It is the agent's direct cost:
 * what it makes the JIT compiler or the collector do elsewhere is not in it (their threads have no
 * frame of the program), nor is the time its longer code takes to be compiled.
 */
final class AgentShare {
    static final String AGENT_PACKAGE = "io.mpilens.agent.";
    private static final String LIBRARY = "linux-x64/libasyncProfiler.so";

    private final String programPackage;
    private long samples;
    private long programSamples;
    private long agentSamples;
    private long agentStartSamples;
    /** Per part of the program (a JGF kernel or benchmark): application samples, agent samples after start-up. */
    private final Map<String, long[]> parts = new TreeMap<>();

    /** {@code programPackage}: a frame of this package marks a thread of the application (e.g. {@code jgf_mpj_benchmarks.}). */
    AgentShare(String programPackage) {
        this.programPackage = programPackage;
    }

    /** async-profiler's native library, taken out of its Maven Central jar (on the bench's class path) into {@code work}. */
    static Path library(Path work) throws IOException {
        try (InputStream in = AgentShare.class.getClassLoader().getResourceAsStream(LIBRARY)) {
            if (in == null) {
                throw new IOException("--profile needs async-profiler's " + LIBRARY + " on the bench's class path (Linux x64 only);"
                        + " rebuild the bench: ./mvnw -B -q install -DskipTests -pl bench");
            }
            Path lib = work.resolve("libasyncProfiler.so");
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            return lib;
        }
    }

    /** The JVM option that profiles a launch into {@code dir}, a file of collapsed stacks per JVM. */
    static String profilingOption(Path library, Path dir) {
        return "-agentpath:" + library + "=start,event=ctimer,interval=1ms,collapsed,file=" + dir.resolve("%p.collapsed");
    }

    /** Adds every profile under {@code dir}. */
    void add(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(f -> f.toString().endsWith(".collapsed")).toList();
        }
        if (files.isEmpty()) throw new IOException("async-profiler wrote no profile into " + dir);
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) add(line);
        }
    }

    /** One line of collapsed stacks: frames separated by {@code ;}, a space, the sample count. */
    void add(String line) {
        int space = line.lastIndexOf(' ');
        if (space < 0) return;
        long n;
        try {
            n = Long.parseLong(line.substring(space + 1).trim());
        } catch (NumberFormatException e) {
            return;
        }
        String stack = line.substring(0, space).replace('/', '.');
        samples += n;
        if (!stack.contains(programPackage)) return;
        programSamples += n;
        long[] part = parts.computeIfAbsent(part(stack), k -> new long[2]);
        part[0] += n;
        if (!stack.contains(AGENT_PACKAGE)) return;
        agentSamples += n;
        if (stack.contains(".MPI.Init") || stack.contains("InstrumentationImpl.transform")) {
            agentStartSamples += n;
        } else {
            part[1] += n;
        }
    }

    /**
     * The part of the program a stack is in: the innermost frame of the program's package names it
     * by its own package's last name when that is a package of its own (JGF section 2's kernels:
     * {@code sor}, {@code crypt}, ...), else by its class (JGF section 1's {@code JGFBcastBench}, ...).
     */
    String part(String stack) {
        String[] frames = stack.split(";");
        for (int i = frames.length - 1; i >= 0; i--) {
            String f = frames[i];
            if (!f.startsWith(programPackage)) continue;
            int method = f.lastIndexOf('.');
            String type = method < 0 ? f : f.substring(0, method);
            int dot = type.lastIndexOf('.');
            String pkg = dot < 0 ? "" : type.substring(0, dot + 1);
            String simple = type.substring(dot + 1);
            if (pkg.equals(programPackage) || pkg.endsWith(".section1.")) return simple;
            String[] names = pkg.split("\\.");
            return names[names.length - 1];
        }
        return "?";
    }

    /** Per part of the program: its application samples and the agent's among them after start-up. */
    Map<String, long[]> parts() {
        return parts;
    }

    /** All samples of the JVMs (the compiler's, the collector's and the binding's own threads too). */
    long samples() {
        return samples;
    }

    /** Samples of the application's threads. */
    long programSamples() {
        return programSamples;
    }

    long agentSamples() {
        return agentSamples;
    }

    /** The agent's samples at start-up: in the binding's {@code Init} (predefined handles) or weaving a class as it loads. */
    long agentStartSamples() {
        return agentStartSamples;
    }

    /** The agent's share of the application threads' samples, start-up left out of the agent's. */
    double runningShare() {
        return programSamples == 0 ? Double.NaN : (agentSamples - agentStartSamples) / (double) programSamples;
    }

    /** The agent's share of the application threads' samples. */
    double share() {
        return programSamples == 0 ? Double.NaN : agentSamples / (double) programSamples;
    }
}
