package io.mpilens.headless.cli;

import io.mpilens.headless.observe.HostCollectors;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code --hosts H1,H2,…}: also the ranks on other hosts, through a collector started on each. */
final class HostsOption {
    @Option(names = "--hosts", split = ",", paramLabel = "HOST",
            description = {"Also the job's ranks on these hosts: on each, 'mpilens collect' is started with ssh"
                    + " ($MPILENS_SSH, default ssh; the command there: $MPILENS_REMOTE, default this mpilens's own path)"
                    + " and its report merged in; a host that does not answer in time is reported, its ranks"
                    + " UNAVAILABLE. Default: $MPILENS_HOSTS."})
    List<String> hosts;

    @Option(names = "--via", paramLabel = "ssh|mpirun",
            description = {"How the collectors on the --hosts are started: ssh (default; $MPILENS_SSH) or mpirun"
                    + " (one 'mpirun -np 1 --host HOST' each, the job's own launcher: inside an allocation that"
                    + " allows no ssh to its nodes; $MPILENS_MPIRUN, default mpirun). Default: $MPILENS_VIA, else ssh."})
    String via;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The collectors to ask, null when no host was given. */
    HostCollectors collectors(Map<String, String> env) {
        List<String> h = hosts;
        if (h == null && env.get(HostCollectors.HOSTS_ENV) != null) {
            h = Arrays.stream(env.get(HostCollectors.HOSTS_ENV).split("[,\\s]+")).filter(x -> !x.isEmpty()).toList();
        }
        if (h == null || h.isEmpty()) return null;
        String home = System.getProperty("mpilens.home");
        try {
            return collectors(h, env, home);
        } catch (IllegalArgumentException e) {
            // a host name or a --via that is not one: a usage error (exit 2), like any bad option
            throw new CommandLine.ParameterException(command.commandLine(), e.getMessage());
        }
    }

    private HostCollectors collectors(List<String> h, Map<String, String> env, String home) {
        return HostCollectors.of(h, via == null ? null : HostCollectors.Via.of(via), env, home != null ? java.nio.file.Path.of(home, "mpilens").toString() : "mpilens",
                io.mpilens.headless.json.CollectorJson::parse);
    }
}
