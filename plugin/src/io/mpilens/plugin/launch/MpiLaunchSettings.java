package io.mpilens.plugin.launch;

import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The MPI part of an <i>MPI Java Application</i> launch configuration (binding, ranks, extra
 * {@code mpirun} arguments, agent options) and how a resolved configuration becomes a
 * {@link JobSpec}. No Eclipse types: the delegate resolves project, class path and arguments,
 * this class checks and combines them.
 *
 * @param mpirunArgs extra {@code mpirun} words (Open MPI only), e.g. {@code --mca orte_abort_on_non_zero_status 0}
 * @param agentOptions the agent's option string, empty for its defaults
 */
public record MpiLaunchSettings(Binding binding, int ranks, String mpirunArgs, String agentOptions) {
    public static final String ATTR_BINDING = "io.mpilens.launch.binding";
    public static final String ATTR_RANKS = "io.mpilens.launch.ranks";
    public static final String ATTR_MPIRUN_ARGS = "io.mpilens.launch.mpirunArgs";
    public static final String ATTR_AGENT_OPTIONS = "io.mpilens.launch.agentOptions";
    /**
     * Boolean, default false: the launch shares each rank JVM's debugger connection ({@code mpilens
     * share}, for as long as the job runs), its own debug targets attach through the share's ports,
     * and other debuggers may attach to them too. Not part of these settings: the delegate reads it.
     */
    public static final String ATTR_SHARE = "io.mpilens.launch.share";
    /** The launch configuration type's id (plugin.xml). */
    public static final String TYPE_ID = "io.mpilens.launch.mpiJavaApplication";

    public static final Binding DEFAULT_BINDING = Binding.OPENMPI;
    public static final int DEFAULT_RANKS = 4;
    /** More ranks than this on one machine is a typing error, not a test job. */
    public static final int MAX_RANKS = 256;

    public MpiLaunchSettings {
        if (binding == null) throw new IllegalArgumentException("no MPI binding chosen: use one of " + bindingIds());
        if (ranks < 1 || ranks > MAX_RANKS) {
            throw new IllegalArgumentException("number of ranks must be between 1 and " + MAX_RANKS + ", got " + ranks);
        }
        mpirunArgs = mpirunArgs == null ? "" : mpirunArgs.trim();
        agentOptions = agentOptions == null ? "" : agentOptions.trim();
        if (!mpirunArgs.isEmpty() && binding != Binding.OPENMPI) {
            throw new IllegalArgumentException("mpirun arguments apply to Open MPI only, not " + binding
                    + ": clear them or choose Open MPI");
        }
    }

    public static MpiLaunchSettings defaults() {
        return new MpiLaunchSettings(DEFAULT_BINDING, DEFAULT_RANKS, "", "");
    }

    /**
     * Reads the attributes of a launch configuration ({@code ILaunchConfiguration.getAttributes()});
     * missing ones take their defaults.
     *
     * @throws IllegalArgumentException naming the attribute that is wrong and what it accepts
     */
    public static MpiLaunchSettings from(Map<String, Object> attributes) {
        Object b = attributes.get(ATTR_BINDING);
        Binding binding = b == null ? DEFAULT_BINDING : Binding.parse(b.toString());
        Object r = attributes.get(ATTR_RANKS);
        int ranks;
        if (r == null) {
            ranks = DEFAULT_RANKS;
        } else if (r instanceof Integer i) {
            ranks = i;
        } else {
            try {
                ranks = Integer.parseInt(r.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("number of ranks is not a number: '" + r + "'");
            }
        }
        return new MpiLaunchSettings(binding, ranks, string(attributes.get(ATTR_MPIRUN_ARGS)),
                string(attributes.get(ATTR_AGENT_OPTIONS)));
    }

    /** The attributes to store for these settings. */
    public Map<String, Object> attributes() {
        return Map.of(ATTR_BINDING, binding.id(), ATTR_RANKS, ranks, ATTR_MPIRUN_ARGS, mpirunArgs,
                ATTR_AGENT_OPTIONS, agentOptions);
    }

    /** Why the attributes cannot be launched, or null when they can (for the tab's error line). */
    public static String problem(Map<String, Object> attributes) {
        try {
            from(attributes);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /**
     * The job to start: the agent and JDWP on every rank, the project's class path, the user's
     * VM and program arguments.
     *
     * @param workingDirectory null for the job's own temporary directory
     * @param java             the {@code java} that runs the ranks
     */
    public JobSpec spec(String mainClass, List<Path> classPath, List<String> vmArgs, List<String> programArgs,
                        Path agentJar, Path workingDirectory, String java) {
        if (mainClass == null || mainClass.isBlank()) {
            throw new IllegalArgumentException("no main class: choose the class whose main() every rank runs");
        }
        if (classPath.isEmpty()) {
            throw new IllegalArgumentException("the class path is empty: choose the project that holds " + mainClass);
        }
        for (String a : vmArgs) {
            if (a.startsWith("-agentlib:jdwp") || a.startsWith("-Xrunjdwp")) {
                throw new IllegalArgumentException("remove '" + a + "' from the VM arguments: the launch gives every rank"
                        + " its own JDWP port and attaches to it");
            }
        }
        JobSpec.Builder b = JobSpec.builder(binding, ranks, mainClass.trim()).classPath(classPath).jvmOptions(vmArgs)
                .appArgs(programArgs).agentJar(agentJar).jdwp(true).javaExecutable(java);
        if (!agentOptions.isEmpty()) b.agentOptions(agentOptions);
        if (!mpirunArgs.isEmpty()) b.mpirunArgs(mpirunArgs);
        if (workingDirectory != null) b.workingDirectory(workingDirectory);
        return b.build();
    }

    /**
     * Names of the rank JVMs' debug targets, in the order {@code Job.awaitJdwpAddresses} returns
     * them: by rank for Open MPI, by start for niodev (which rank each is shows once read), one
     * JVM for all ranks under multicore.
     */
    public List<String> targetLabels(List<JdwpAddress> addresses) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            String at = " (" + addresses.get(i) + ")";
            switch (binding) {
                case OPENMPI -> out.add("rank " + i + at);
                case MPJ_MULTICORE -> out.add("ranks 0-" + (ranks - 1) + at);
                default -> out.add("rank JVM " + (i + 1) + " of " + addresses.size() + at);
            }
        }
        return out;
    }

    private static String string(Object o) {
        return o == null ? "" : o.toString();
    }

    private static String bindingIds() {
        List<String> ids = new ArrayList<>();
        for (Binding b : Binding.values()) ids.add(b.id());
        return String.join(", ", ids);
    }
}
