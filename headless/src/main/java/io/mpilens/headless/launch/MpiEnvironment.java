package io.mpilens.headless.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the MPI bindings are installed: Open MPI's {@code mpi.jar} and the MPJ Express home.
 * {@code scripts/setup-env} builds both under {@code .deps/} and writes {@code .deps/env.sh}.
 */
public final class MpiEnvironment {
    /** System property naming Open MPI's {@code mpi.jar}; the environment variable is {@code MPILENS_OMPI_JAR}. */
    public static final String OMPI_JAR_PROPERTY = "mpilens.ompiJar";
    /** System property naming the MPJ Express home; the environment variable is {@code MPJ_HOME}. */
    public static final String MPJ_HOME_PROPERTY = "mpilens.mpjHome";
    /** System property naming the {@code .deps} directory holding {@code env.sh} (surefire sets it). */
    public static final String DEPS_PROPERTY = "mpilens.deps";

    private static final Pattern EXPORT = Pattern.compile("^\\s*export\\s+(\\w+)=(?:'([^']*)'|\"([^\"]*)\"|(\\S*))\\s*$");

    private final Path ompiJar;
    private final Path mpjHome;
    private final String origin;

    private MpiEnvironment(Path ompiJar, Path mpjHome, String origin) {
        this.ompiJar = ompiJar;
        this.mpjHome = mpjHome;
        this.origin = origin;
    }

    /** Explicit paths; either may be null when that binding is not installed. */
    public static MpiEnvironment of(Path ompiJar, Path mpjHome) {
        return new MpiEnvironment(ompiJar, mpjHome, "given paths");
    }

    /**
     * Finds the bindings: system properties first, then environment variables, then the
     * {@code env.sh} of {@code -Dmpilens.deps} or of the nearest {@code .deps/} above the
     * working directory.
     */
    public static MpiEnvironment detect() {
        Map<String, String> envSh = new HashMap<>();
        Path envFile = findEnvSh();
        if (envFile != null) envSh = readEnvSh(envFile);
        Path ompi = firstPath(System.getProperty(OMPI_JAR_PROPERTY), System.getenv("MPILENS_OMPI_JAR"),
                envSh.get("MPILENS_OMPI_JAR"));
        Path mpj = firstPath(System.getProperty(MPJ_HOME_PROPERTY), System.getenv("MPJ_HOME"), envSh.get("MPJ_HOME"));
        String origin = "-D" + OMPI_JAR_PROPERTY + "/-D" + MPJ_HOME_PROPERTY + ", $MPILENS_OMPI_JAR/$MPJ_HOME"
                + (envFile != null ? ", " + envFile : ", no .deps/env.sh found");
        return new MpiEnvironment(ompi, mpj, origin);
    }

    /** Open MPI's {@code mpi.jar}, or null. */
    public Path ompiJar() {
        return ompiJar;
    }

    /** The MPJ Express home (with {@code lib/starter.jar} and {@code conf/}), or null. */
    public Path mpjHome() {
        return mpjHome;
    }

    /** Fails with what is missing and how to get it when {@code binding} cannot run. */
    public void require(Binding binding) throws IOException {
        if (binding == Binding.OPENMPI) {
            if (ompiJar == null || !Files.isRegularFile(ompiJar)) {
                throw new IOException("Open MPI Java bindings not found: no mpi.jar"
                        + (ompiJar != null ? " at " + ompiJar : "") + " (looked at " + origin
                        + "). Run scripts/setup-env, then '. .deps/env.sh'.");
            }
            return;
        }
        if (mpjHome == null || !Files.isRegularFile(mpjHome.resolve("lib/starter.jar"))
                || !Files.isRegularFile(mpjHome.resolve("conf/mpjexpress.conf"))) {
            throw new IOException("MPJ Express not found: " + (mpjHome == null ? "MPJ_HOME is not set"
                    : mpjHome + " has no lib/starter.jar or conf/mpjexpress.conf") + " (looked at " + origin
                    + "). Run scripts/setup-env, then '. .deps/env.sh'.");
        }
    }

    @Override
    public String toString() {
        return "MpiEnvironment[ompiJar=" + ompiJar + ", mpjHome=" + mpjHome + "]";
    }

    private static Path findEnvSh() {
        String deps = System.getProperty(DEPS_PROPERTY);
        if (deps != null) {
            Path p = Path.of(deps, "env.sh");
            if (Files.isRegularFile(p)) return p;
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(".deps/env.sh");
            if (Files.isRegularFile(p)) return p;
        }
        return null;
    }

    static Map<String, String> readEnvSh(Path file) {
        Map<String, String> out = new HashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return out; // unreadable: the bindings count as not found, and require() says so
        }
        for (String line : lines) {
            Matcher m = EXPORT.matcher(line);
            if (!m.matches()) continue;
            String v = m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4);
            out.put(m.group(1), v);
        }
        return out;
    }

    private static Path firstPath(String... candidates) {
        for (String c : candidates) {
            if (c != null && !c.isBlank()) return Path.of(c.trim());
        }
        return null;
    }
}
