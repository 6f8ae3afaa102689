package io.mpilens.headless.cli;

import io.mpilens.headless.json.CollectorJson;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.HostChoice;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --hosts H1,H2,…} and {@code --via}: also the ranks on other hosts, through a collector
 * started on each; which hosts and how by {@link HostChoice}, the rule the Eclipse views follow too.
 */
final class HostsOption {
    @Option(names = "--hosts", split = ",", paramLabel = "HOST",
            description = {"Also the job's ranks on these hosts: on each, 'mpilens collect' is started with ssh"
                    + " ($MPILENS_SSH, default ssh; the command there: $MPILENS_REMOTE, default this mpilens's own path)"
                    + " and its report merged in; a host that does not answer in time is reported, its ranks"
                    + " UNAVAILABLE. Default: $MPILENS_HOSTS, else the other hosts of this user's mpirun on this host"
                    + " (its --host, hostfile or allocation; said on stderr). 'none': this host only."})
    List<String> hosts;

    @Option(names = "--via", paramLabel = "ssh|mpirun|mpj",
            description = {"How the collectors on the --hosts are started: ssh (default; $MPILENS_SSH), mpirun"
                    + " (one 'mpirun -np 1 --host HOST' each, the job's own launcher: inside an allocation that"
                    + " allows no ssh to its nodes; $MPILENS_MPIRUN, default mpirun) or mpj (the MPJ Express daemon"
                    + " on each host, the launcher of a niodev job: on the port of the job's starter, found with its"
                    + " machines file, else $MPILENS_MPJ_DAEMON_PORT, else $MPJ_HOME/conf/mpjexpress.conf's)."
                    + " Default: $MPILENS_VIA, else ssh."})
    String via;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private boolean resolved;
    private HostCollectors resolvedCollectors;

    /**
     * The collectors to ask, null when no host was given nor found ({@link HostChoice}: hosts found
     * rather than named are said on stderr); worked out once per command.
     */
    HostCollectors collectors(Map<String, String> env) {
        if (!resolved) {
            String home = System.getProperty("mpilens.home");
            HostChoice choice;
            try {
                choice = HostChoice.of(hosts, via, env, home != null ? java.nio.file.Path.of(home, "mpilens").toString() : "mpilens",
                        CollectorJson::parse);
            } catch (IllegalArgumentException e) {
                // a host name or a --via that is not one: a usage error (exit 2), like any bad option
                throw new CommandLine.ParameterException(command.commandLine(), e.getMessage());
            }
            if (choice.said() != null) command.commandLine().getErr().println("mpilens: " + choice.said());
            resolvedCollectors = choice.collectors();
            resolved = true;
        }
        return resolvedCollectors;
    }
}
