package io.mpilens.plugin.launch;

import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.headless.observe.Launchers;
import io.mpilens.plugin.debug.JobAcrossHosts;
import io.mpilens.plugin.debug.JobAttach;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.debug.MpiLaunch;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.jdt.launching.AbstractJavaLaunchConfigurationDelegate;
import org.eclipse.jdt.launching.ExecutionArguments;
import org.eclipse.jdt.launching.IJavaLaunchConfigurationConstants;
import org.eclipse.jdt.launching.IVMInstall;
import org.osgi.framework.Bundle;

/**
 * Launches an <i>MPI Java Application</i>: starts the job through {@code headless.launch}
 * with the agent and JDWP on every rank JVM, adds the job as the launch's process
 * ({@link MpiJobProcess}: console, terminate) and attaches one JDT Java debug target per rank
 * JVM to the same launch, so breakpoints, suspend and resume work per rank and for all.
 * In run mode the job starts the same way (agent and JDWP on every rank, nobody attached): the
 * console names the ranks' JDWP addresses, so a job that hangs can be attached to later
 * (Attach to MPI Job, or {@code ./mpilens cominfo --job}) without a restart. When {@code mpirun}'s
 * arguments put ranks on other hosts, the ranks on this host are debugged as usual and the others
 * are read by a collector on each host, into the same job ({@link MpiJob#readElsewhere}).
 * Runs in the launch's background job, never on the UI thread.
 */
public final class MpiLaunchDelegate extends AbstractJavaLaunchConfigurationDelegate {
    /** Overrides the agent jar shipped in the plugin ({@code agent/mpilens-agent.jar}). */
    public static final String AGENT_JAR_PROPERTY = "mpilens.agentJar";
    private static final String AGENT_ENTRY = "agent/mpilens-agent.jar";
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration ATTACH = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(500);

    /** An {@link MpiLaunch}: Suspend and Resume on it act on every rank; it holds the job the MPI views show. */
    @Override
    public ILaunch getLaunch(ILaunchConfiguration config, String mode) {
        return new MpiLaunch(config, mode);
    }

    @Override
    public void launch(ILaunchConfiguration config, String mode, ILaunch launch, IProgressMonitor monitor)
            throws CoreException {
        SubMonitor sub = SubMonitor.convert(monitor, "Launching MPI job " + config.getName(), 4);
        MpiLaunchSettings settings;
        try {
            settings = MpiLaunchSettings.from(config.getAttributes());
        } catch (IllegalArgumentException e) {
            throw abort(config, e.getMessage(), e);
        }
        String mainType = verifyMainTypeName(config);
        List<Path> classPath = new ArrayList<>();
        for (String e : getClasspath(config)) classPath.add(Path.of(e));
        ExecutionArguments args = new ExecutionArguments(getVMArguments(config), getProgramArguments(config));
        File wd = verifyWorkingDirectory(config);
        List<String> vmArgs = new ArrayList<>(Arrays.asList(args.getVMArgumentsArray()));
        // ranks that mpirun puts on other hosts get a job id of ours: the views find them by it there
        String acrossHostsJob = elsewhere(settings, wd) ? "eclipse-" + Long.toHexString(System.currentTimeMillis())
                + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000)) : null;
        if (acrossHostsJob != null) vmArgs.add("-Dmpilens.job=" + acrossHostsJob);
        // a share of the job's debugger connections, when asked (and the ranks are on this host): the job gets an id of ours
        String sharedJob = acrossHostsJob == null && config.getAttribute(MpiLaunchSettings.ATTR_SHARE, false)
                ? "eclipse-" + Long.toHexString(System.currentTimeMillis()) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000)) : null;
        if (sharedJob != null) vmArgs.add("-Dmpilens.job=" + sharedJob);
        JobSpec spec;
        try {
            spec = settings.spec(mainType, classPath, vmArgs,
                    Arrays.asList(args.getProgramArgumentsArray()), agentJar(), wd == null ? null : wd.toPath(),
                    java(config));
        } catch (IllegalArgumentException e) {
            throw abort(config, e.getMessage(), e);
        }
        sub.worked(1);

        sub.subTask("starting " + spec.np() + " ranks on " + spec.binding());
        Job job;
        try {
            job = Job.launch(spec);
        } catch (IOException e) {
            throw abort(config, e.getMessage(), e);
        }
        launch.setAttribute(MpiJob.ATTR_JOB_NAME, config.getName() + " (" + spec.binding() + ", " + spec.np() + " ranks)");
        MpiJobProcess process = MpiJobProcess.attach(launch, job, spec.mainClass() + " [" + spec.binding() + ", "
                + spec.np() + " ranks, launcher pid " + job.pid() + "]");
        try {
            sub.worked(1);
            sub.subTask("waiting for the JDWP port of every rank JVM");
            List<JdwpAddress> addresses = awaitAddresses(job, sub);
            sub.worked(1);
            if (acrossHostsJob != null) {
                Map<Integer, JdwpAddress> here = followAcrossHosts(launch, job, acrossHostsJob, spec.np(), process, sub);
                if (here.isEmpty() || ILaunchManager.RUN_MODE.equals(mode)) return;
                sub.subTask("attaching to the " + here.size() + " rank JVMs on this host");
                List<String> labels = new ArrayList<>();
                here.forEach((rank, a) -> labels.add("rank " + rank + " (" + a + ")"));
                JobAttach.attachTargets(launch, List.copyOf(here.values()), labels, ATTACH);
                return;
            }
            if (sharedJob != null) {
                sub.subTask("sharing the debugger connections of job " + sharedJob + " (ranks register at MPI_Init)");
                addresses = LaunchShare.start(launch, job, sharedJob, addresses, process, START, sub);
            }
            if (ILaunchManager.RUN_MODE.equals(mode)) {
                if (sharedJob == null) process.note(runModeNote(addresses));
                return;
            }
            sub.subTask("attaching to " + addresses.size() + " rank JVMs" + (sharedJob == null ? "" : " through the share"));
            JobAttach.attachTargets(launch, addresses, settings.targetLabels(addresses), ATTACH);
            sub.worked(1);
        } catch (CoreException | RuntimeException e) {
            process.terminate();
            throw e;
        }
    }

    /** Whether mpirun's arguments put ranks on hosts other than this one ({@code --host}, a hostfile, …). */
    private static boolean elsewhere(MpiLaunchSettings settings, File wd) {
        if (settings.binding() != Binding.OPENMPI || settings.mpirunArgs().isEmpty()) return false;
        List<String> argv = new ArrayList<>(List.of("mpirun"));
        for (String w : settings.mpirunArgs().split("\\s+")) if (!w.isEmpty()) argv.add(w);
        Path cwd = wd != null ? wd.toPath() : Path.of("").toAbsolutePath();
        return !Launchers.ofArguments(argv, System.getenv(), cwd).otherHosts().isEmpty();
    }

    /**
     * Ranks on other hosts: no debugger is attached to them (their JDWP ports are on those hosts'
     * loopback, and stay there); the launch's job ({@link MpiJob}) reads them through a collector on
     * each host, as <i>Show MPI Job Across Hosts…</i> does, and the console says so. Waits until
     * every rank registered, here or there (at most {@link #START}); returns the ranks on this host
     * with their JDWP addresses, by rank, for the launch to debug as any other.
     */
    private static Map<Integer, JdwpAddress> followAcrossHosts(ILaunch launch, Job job, String jobId, int np,
                                                               MpiJobProcess process, IProgressMonitor monitor) {
        Launchers.Launch mpirun = Launchers.of(job.pid());
        if (mpirun == null || mpirun.otherHosts().isEmpty()) {
            process.note("ranks on other hosts, job " + jobId + ": mpirun (pid " + job.pid() + ") could not be read to find"
                    + " them; Run > Show MPI Job Across Hosts... with job " + jobId + " and its hosts shows them");
            return Map.of();
        }
        String hosts = String.join(", ", mpirun.otherHosts());
        monitor.subTask("reading the ranks on " + hosts);
        JobAcrossHosts across = JobAcrossHosts.forLaunch(jobId, mpirun, System.getenv(), JobAcrossHosts.TIMEOUT);
        MpiJob shown = MpiJob.of(launch);
        if (shown != null) shown.readElsewhere(across);
        else across.close();
        try {
            across.awaitRanks(np, () -> ranksHere(jobId).keySet(), START, () -> job.isAlive() && !monitor.isCanceled());
        } catch (IOException e) {
            process.note("reading the ranks on other hosts: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<Integer, JdwpAddress> here = ranksHere(jobId);
        process.note("ranks on other hosts (" + hosts + ", from mpirun's " + mpirun.from() + "), job " + jobId
                + ": no debugger is attached to them (their JDWP ports stay on their hosts); the MPI views show them as a"
                + " collector on each host reads them (Refresh reads them again)"
                + (here.isEmpty() ? "" : "; " + (here.size() == 1 ? "rank " : "ranks ")
                        + String.join(" ", here.keySet().stream().map(String::valueOf).toList())
                        + " on this host " + (here.size() == 1 ? "is" : "are") + " debugged, one debug target each"));
        if (shown != null) {
            IStatus first = shown.readNow();
            if (!first.isOK()) process.note(first.getMessage());
        }
        return here;
    }

    /**
     * The job's ranks on this host by COMM_WORLD rank, with their JDWP addresses, from their job
     * records (written when MPI_Init returns); empty while none registered.
     */
    private static Map<Integer, JdwpAddress> ranksHere(String jobId) {
        Map<Integer, JdwpAddress> out = new TreeMap<>();
        try {
            for (JobRecord r : JobDirectory.forCurrentUser(System.getenv()).job(jobId).records()) {
                if (!r.spawned() && !LocalProcesses.runsElsewhere(r) && r.jdwpAddress() != null) out.put(r.rank(), r.jdwpAddress());
            }
        } catch (IOException e) {
            // no rank registered here yet
        }
        return out;
    }

    /** What run mode tells the user: where the ranks listen, and how to look inside later. */
    static String runModeNote(List<JdwpAddress> addresses) {
        StringBuilder all = new StringBuilder();
        for (JdwpAddress a : addresses) all.append(all.length() == 0 ? "" : ",").append(a);
        return "run mode: " + addresses.size() + " rank JVM" + (addresses.size() == 1 ? "" : "s")
                + " with the mpilens agent, no debugger attached. To look inside (a hang, a leak), without a restart:"
                + " Run > Attach to MPI Job... with " + all + "  (or: ./mpilens handles --attach " + all + ")";
    }

    private static List<JdwpAddress> awaitAddresses(Job job, IProgressMonitor monitor) throws CoreException {
        long deadline = System.nanoTime() + START.toNanos();
        while (true) {
            try {
                List<JdwpAddress> out = new ArrayList<>();
                for (String a : job.awaitJdwpAddresses(POLL)) out.add(JdwpAddress.parse(a));
                return out;
            } catch (IOException e) {
                if (!job.isAlive() || System.nanoTime() > deadline) {
                    throw new CoreException(Status.error("the MPI job did not start its rank JVMs: " + e.getMessage()
                            + "\nCommand: " + String.join(" ", job.command()), e));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoreException(Status.CANCEL_STATUS);
            }
            if (monitor.isCanceled()) throw new CoreException(Status.CANCEL_STATUS);
        }
    }

    /** The JRE chosen on the JRE tab, else {@code java} on the PATH (as {@code mpilens run} does). */
    private String java(ILaunchConfiguration config) throws CoreException {
        if (config.getAttribute(IJavaLaunchConfigurationConstants.ATTR_JRE_CONTAINER_PATH, (String) null) == null) return "java";
        IVMInstall vm = verifyVMInstall(config);
        return new File(vm.getInstallLocation(), "bin/java").getAbsolutePath();
    }

    /** The agent jar shipped inside this plugin, extracted to a file if the bundle is a jar. */
    static Path agentJar() throws CoreException {
        String override = System.getProperty(AGENT_JAR_PROPERTY);
        if (override != null && !override.isBlank()) {
            Path p = Path.of(override);
            if (!Files.isRegularFile(p)) {
                throw new CoreException(Status.error("-D" + AGENT_JAR_PROPERTY + "=" + override + " is not a file"));
            }
            return p;
        }
        Bundle bundle = Platform.getBundle("io.mpilens.plugin");
        URL entry = bundle == null ? null : bundle.getEntry(AGENT_ENTRY);
        if (entry == null) {
            throw new CoreException(Status.error("the mpilens agent is missing from the plugin (" + AGENT_ENTRY
                    + "): reinstall the mpilens feature, or start Eclipse with -D" + AGENT_JAR_PROPERTY + "=PATH"));
        }
        // a copy in the plugin's state area: the bundle's own extraction path contains "/.cp/", and Open MPI's
        // mpirun takes the argument after any argument containing "cp" for a class path (it prepends its directory)
        Path copy = Platform.getStateLocation(bundle).toFile().toPath().resolve("mpilens-agent.jar");
        try (InputStream in = entry.openStream()) {
            byte[] jar = in.readAllBytes();
            if (!Files.isRegularFile(copy) || Files.size(copy) != jar.length || !Arrays.equals(Files.readAllBytes(copy), jar)) {
                Path tmp = Files.createTempFile(copy.getParent(), "agent", ".jar");
                Files.write(tmp, jar);
                Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            return copy;
        } catch (IOException e) {
            throw new CoreException(Status.error("cannot copy the mpilens agent to " + copy + ": " + e.getMessage(), e));
        }
    }

    private static CoreException abort(ILaunchConfiguration config, String message, Throwable cause) {
        return new CoreException(Status.error("Cannot launch " + config.getName() + ": " + message, cause));
    }
}
