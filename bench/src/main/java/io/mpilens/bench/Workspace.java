package io.mpilens.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The built reactor the harnesses run against: the agent jar and the classes the targets need. */
final class Workspace {
    /** Set by {@code bench/run}; without it the harness looks upwards from the working directory. */
    static final String ROOT_PROPERTY = "mpilens.root";
    private static final String BUILD_HINT = "build it first: JAVA_HOME=<JDK 21+> ./mvnw -B -q install -DskipTests -pl bench -am";

    final Path root;

    private Workspace(Path root) {
        this.root = root;
    }

    static Workspace detect() {
        String given = System.getProperty(ROOT_PROPERTY);
        if (given != null) return new Workspace(Path.of(given).toAbsolutePath().normalize());
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("runtime-agent")) && Files.isDirectory(d.resolve("bench"))) {
                return new Workspace(d);
            }
        }
        throw new IllegalStateException("cannot find the mpilens checkout above " + Path.of("").toAbsolutePath()
                + ": run from inside it, or pass -D" + ROOT_PROPERTY + "=DIR");
    }

    Path agentJar() {
        return require("runtime-agent/target/mpilens-agent.jar");
    }

    /** The snapshot target's own classes; the registry classes come from {@link #registryClasses()}. */
    Path benchClasses() {
        return require("bench/target/classes");
    }

    /**
     * The agent's classes and the handle-api classes they use, for a target that fills the
     * registry itself (on its class path; the agent jar holds them only in its boot pack).
     */
    List<Path> registryClasses() {
        return List.of(require("runtime-agent/target/classes"), require("handle-api/target/classes"));
    }

    /** {@link #benchClasses()} then {@link #registryClasses()}: a synthetic target's class path. */
    List<Path> targetClassPath() {
        List<Path> cp = new java.util.ArrayList<>();
        cp.add(benchClasses());
        cp.addAll(registryClasses());
        return cp;
    }

    /** What the Open MPI examples run from (the launcher adds Open MPI's mpi.jar). */
    List<Path> openMpiExampleClassPath() {
        return List.of(require("examples/support/target/classes"), require("examples/openmpi/target/classes"));
    }

    /** What the MPJ Express examples run from (the launcher adds MPJ Express's jars). */
    List<Path> mpjExampleClassPath() {
        return List.of(require("examples/support/target/classes"), require("examples/mpj/target/classes"));
    }

    private Path require(String relative) {
        Path p = root.resolve(relative);
        if (!Files.exists(p)) throw new IllegalStateException(p + " does not exist: " + BUILD_HINT);
        return p;
    }
}
