package io.mpilens.headless.cli;

import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.Launchers;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --hosts H1,H2,…}: also the ranks on other hosts, through a collector started on each.
 * Without it (and without {@value HostCollectors#HOSTS_ENV}), the hosts this user's launchers on
 * this host put ranks on ({@link Launchers}), reached the way the launcher reached them (its
 * {@code plm_rsh_agent}) unless {@value HostCollectors#SSH_ENV} says otherwise; {@code --hosts none}:
 * this host only.
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

    /** {@code --hosts none}: this host only, whatever runs here. */
    static final String NONE = "none";

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private boolean resolved;
    private HostCollectors resolvedCollectors;

    /** The collectors to ask, null when no host was given nor found; worked out once per command. */
    HostCollectors collectors(Map<String, String> env) {
        if (!resolved) {
            resolvedCollectors = resolve(env);
            resolved = true;
        }
        return resolvedCollectors;
    }

    private HostCollectors resolve(Map<String, String> env) {
        List<String> h = hosts;
        if (h == null && env.get(HostCollectors.HOSTS_ENV) != null) {
            h = Arrays.stream(env.get(HostCollectors.HOSTS_ENV).split("[,\\s]+")).filter(x -> !x.isEmpty()).toList();
        }
        if (h == null) return discovered(env);
        if (h.isEmpty() || h.equals(List.of(NONE))) return null;
        return collectors(h, env);
    }

    /**
     * Named by nobody: the other hosts of this user's launchers here, if any, said on stderr,
     * reached as the launcher reached them (its {@code plm_rsh_agent}, for ssh or for mpirun)
     * unless the environment names the way.
     */
    private HostCollectors discovered(Map<String, String> env) {
        Launchers.Found found = Launchers.onThisHost();
        if (found.hosts().isEmpty()) return null;
        Map<String, String> e = new HashMap<>(env);
        String way = via != null ? via : env.getOrDefault(HostCollectors.VIA_ENV, "ssh");
        boolean mpirun = way.strip().equalsIgnoreCase("mpirun");
        String how = way;
        if (way.strip().equalsIgnoreCase("mpj")) {
            // the daemons the starter reached, on its -dport, unless the environment names a port
            if (found.mpjDaemonPort() > 0 && env.get(io.mpilens.headless.observe.MpjDaemons.PORT_ENV) == null) {
                e.put(io.mpilens.headless.observe.MpjDaemons.PORT_ENV, Integer.toString(found.mpjDaemonPort()));
            }
            how = "MPJ Express's daemons" + (found.mpjDaemonPort() > 0 ? " on its -dport " + found.mpjDaemonPort() : "");
        } else if (found.rshAgent() != null) {
            String key = mpirun ? HostCollectors.MPIRUN_ENV : HostCollectors.SSH_ENV;
            if (env.get(key) == null) {
                e.put(key, mpirun ? "mpirun --mca plm_rsh_agent " + found.rshAgent() : batch(found.rshAgent()));
                how = mpirun ? "mpirun through its plm_rsh_agent " + found.rshAgent() : "its plm_rsh_agent " + found.rshAgent();
            }
        } else if (!mpirun && env.get(HostCollectors.SSH_ENV) == null) {
            e.put(HostCollectors.SSH_ENV, batch("ssh"));
        }
        command.commandLine().getErr().println("mpilens: also reading the hosts of " + found.describe()
                + " (collectors started with " + how + "; --hosts none: this host only)");
        return collectors(found.hosts(), e);
    }

    /**
     * Hosts nobody named are reached without questions: plain ssh gets {@code -o BatchMode=yes}, so
     * a host that wants a password fails at once (named on stderr) instead of asking on the terminal.
     */
    static String batch(String agent) {
        String first = agent.strip().split("\\s+")[0];
        return first.equals("ssh") || first.endsWith("/ssh") ? agent.strip() + " -o BatchMode=yes" : agent;
    }

    private HostCollectors collectors(List<String> h, Map<String, String> env) {
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
