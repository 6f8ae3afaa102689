package io.mpilens.headless.launch;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What to launch: binding, ranks, program, and what mpilens adds to each rank JVM. Immutable. */
public final class JobSpec {
    /** The JDWP option added to each rank JVM: a server on a free loopback port, not suspended. */
    public static final String JDWP_OPTION =
            "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0";
    /**
     * The same, quiet: a rank with the agent. The JDWP agent would print its "Listening for
     * transport …" line into the job's output again after every debugger that detaches (each
     * command's, each collector's round); the mpilens agent prints the first address once instead
     * ({@code jdwpLine=true}, {@code JobRecordLayout.JDWP_LINE}).
     */
    public static final String JDWP_QUIET_OPTION = JDWP_OPTION + ",quiet=y";

    private final Binding binding;
    private final int np;
    private final String mainClass;
    private final List<Path> classPath;
    private final List<String> appArgs;
    private final List<String> jvmOptions;
    private final Path agentJar;
    private final String agentOptions;
    private final boolean jdwp;
    private final Path controlDir;
    private final List<String> mpirunArgs;
    private final String javaExecutable;
    private final Path workingDirectory;
    private final MpiEnvironment environment;
    private final Duration startTimeout;
    private final java.util.Map<String, String> env;

    private JobSpec(Builder b) {
        binding = Objects.requireNonNull(b.binding, "binding");
        if (b.np < 1) throw new IllegalArgumentException("np must be at least 1, got " + b.np);
        np = b.np;
        mainClass = Objects.requireNonNull(b.mainClass, "mainClass");
        classPath = List.copyOf(b.classPath);
        appArgs = List.copyOf(b.appArgs);
        jvmOptions = List.copyOf(b.jvmOptions);
        agentJar = b.agentJar;
        agentOptions = b.agentOptions;
        jdwp = b.jdwp;
        controlDir = b.controlDir;
        mpirunArgs = List.copyOf(b.mpirunArgs);
        javaExecutable = b.javaExecutable;
        workingDirectory = b.workingDirectory;
        environment = b.environment != null ? b.environment : MpiEnvironment.detect();
        startTimeout = b.startTimeout;
        env = java.util.Map.copyOf(b.env);
    }

    public static Builder builder(Binding binding, int np, String mainClass) {
        return new Builder().binding(binding).np(np).mainClass(mainClass);
    }

    public Binding binding() { return binding; }
    public int np() { return np; }
    public String mainClass() { return mainClass; }
    /** The application's class path; the launcher adds the binding's own jars. */
    public List<Path> classPath() { return classPath; }
    public List<String> appArgs() { return appArgs; }
    /** Options for each rank JVM, before the agent and JDWP options. */
    public List<String> jvmOptions() { return jvmOptions; }
    /** The mpilens agent jar, or null for no agent. */
    public Path agentJar() { return agentJar; }
    /** The agent's option string ({@code -javaagent:jar=OPTIONS}), or null. */
    public String agentOptions() { return agentOptions; }
    public boolean jdwp() { return jdwp; }
    /** Where {@code POINT.go} files release paused ranks ({@code -Dmpilens.control}), or null. */
    public Path controlDir() { return controlDir; }
    /** Extra {@code mpirun} arguments (Open MPI only), e.g. {@code --mca orte_abort_on_non_zero_status 0}. */
    public List<String> mpirunArgs() { return mpirunArgs; }
    /** The {@code java} that runs the ranks (and MPJ's starter). */
    public String javaExecutable() { return javaExecutable; }
    /** The launcher's working directory, or null for the job's own temporary directory. */
    public Path workingDirectory() { return workingDirectory; }
    public MpiEnvironment environment() { return environment; }
    /** How long the launcher may take to get its helpers (the niodev daemon) ready. */
    public Duration startTimeout() { return startTimeout; }

    /** Variables added to the launcher's environment (and so the ranks'), e.g. {@code MPILENS_JOB}. */
    public java.util.Map<String, String> env() { return env; }

    /**
     * The options every rank JVM gets, in order: the user's, control dir, then JDWP and the agent —
     * with the agent, JDWP quiet and first (the agent announces its address at start-up, which it
     * knows only once the JDWP agent has started); without it, JDWP as it is (it announces itself).
     */
    public List<String> rankJvmOptions() {
        List<String> out = new ArrayList<>(jvmOptions);
        if (controlDir != null) out.add("-Dmpilens.control=" + controlDir.toAbsolutePath());
        if (agentJar != null) {
            String opts = agentOptions == null || agentOptions.isEmpty() ? "" : agentOptions;
            if (jdwp) {
                out.add(JDWP_QUIET_OPTION);
                opts = opts.isEmpty() ? "jdwpLine=true" : opts + ",jdwpLine=true";
            }
            out.add("-javaagent:" + agentJar.toAbsolutePath() + (opts.isEmpty() ? "" : "=" + opts));
        } else if (jdwp) {
            out.add(JDWP_OPTION);
        }
        return out;
    }

    public static final class Builder {
        private Binding binding;
        private int np = 1;
        private String mainClass;
        private final List<Path> classPath = new ArrayList<>();
        private final List<String> appArgs = new ArrayList<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private Path agentJar;
        private String agentOptions;
        private boolean jdwp;
        private Path controlDir;
        private final List<String> mpirunArgs = new ArrayList<>();
        private String javaExecutable = "java";
        private Path workingDirectory;
        private MpiEnvironment environment;
        private Duration startTimeout = Duration.ofSeconds(30);
        private final java.util.Map<String, String> env = new java.util.LinkedHashMap<>();

        private Builder() {
        }

        public Builder binding(Binding b) { binding = b; return this; }
        public Builder np(int n) { np = n; return this; }
        public Builder mainClass(String c) { mainClass = c; return this; }
        public Builder classPath(List<Path> entries) { classPath.addAll(entries); return this; }
        public Builder classPath(Path... entries) { return classPath(List.of(entries)); }
        public Builder appArgs(List<String> args) { appArgs.addAll(args); return this; }
        public Builder appArgs(String... args) { return appArgs(List.of(args)); }
        public Builder jvmOptions(List<String> opts) { jvmOptions.addAll(opts); return this; }
        public Builder jvmOptions(String... opts) { return jvmOptions(List.of(opts)); }
        public Builder agentJar(Path jar) { agentJar = jar; return this; }
        public Builder agentOptions(String opts) { agentOptions = opts; return this; }
        public Builder jdwp(boolean on) { jdwp = on; return this; }
        public Builder controlDir(Path dir) { controlDir = dir; return this; }
        /** Extra {@code mpirun} arguments; each whitespace-separated word becomes one argument. */
        public Builder mpirunArgs(String words) {
            for (String w : words.trim().split("\\s+")) if (!w.isEmpty()) mpirunArgs.add(w);
            return this;
        }
        public Builder mpirunArgs(List<String> args) { mpirunArgs.addAll(args); return this; }
        public Builder javaExecutable(String java) { javaExecutable = Objects.requireNonNull(java); return this; }
        public Builder workingDirectory(Path dir) { workingDirectory = dir; return this; }
        public Builder environment(MpiEnvironment env) { environment = env; return this; }
        public Builder startTimeout(Duration d) { startTimeout = Objects.requireNonNull(d); return this; }

        public Builder env(String name, String value) { env.put(name, Objects.requireNonNull(value)); return this; }

        public JobSpec build() {
            return new JobSpec(this);
        }
    }
}
