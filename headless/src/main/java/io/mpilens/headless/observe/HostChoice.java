package io.mpilens.headless.observe;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which hosts a front end asks for a job's ranks elsewhere, and how it reaches them: one rule for
 * the command line ({@code --hosts}, {@code --via}) and the Eclipse views. Hosts named (by the
 * caller, else {@value HostCollectors#HOSTS_ENV}) are asked as named; named by nobody, the other
 * hosts of this user's launchers on this host ({@link Launchers}), reached the way the launcher
 * reached them (its {@code plm_rsh_agent}; a niodev starter's daemons on its {@code -dport})
 * unless the environment names the way, and said in {@link #said}.
 *
 * @param collectors the collectors to ask; null for this host only (nothing named nor found, or {@code none})
 * @param said       one line for the user when the hosts were found rather than named, else null
 */
public record HostChoice(HostCollectors collectors, String said) {
    /** {@code --hosts none}: this host only, whatever runs here. */
    public static final String NONE = "none";

    /** This host only. */
    public static final HostChoice HERE = new HostChoice(null, null);

    /**
     * @param named         hosts the user named, null when nobody did ({@value HostCollectors#HOSTS_ENV} is asked
     *                      then); empty or {@code [none]}: this host only
     * @param via           {@code ssh}, {@code mpirun} or {@code mpj}, null for the environment's default
     * @param defaultRemote the collector command on the hosts unless {@value HostCollectors#REMOTE_ENV} names one
     * @throws IllegalArgumentException a host name or a {@code via} that is not one (a usage error)
     */
    public static HostChoice of(List<String> named, String via, Map<String, String> env, String defaultRemote,
                                HostCollectors.Parser parser) {
        List<String> h = named;
        if (h == null && env.get(HostCollectors.HOSTS_ENV) != null) h = split(env.get(HostCollectors.HOSTS_ENV));
        if (h == null) return discovered(via, env, defaultRemote, parser, Launchers.onThisHost());
        if (h.isEmpty() || h.equals(List.of(NONE))) return HERE;
        return new HostChoice(collectors(h, via, env, defaultRemote, parser), null);
    }

    /**
     * The other hosts of one launcher ({@link Launchers#of}: the Eclipse launch's own {@code mpirun}),
     * reached as it reached them; {@link #HERE} when it puts no rank elsewhere.
     */
    public static HostChoice ofLauncher(Launchers.Launch launcher, String via, Map<String, String> env, String defaultRemote,
                                        HostCollectors.Parser parser) {
        return discovered(via, env, defaultRemote, parser, Launchers.found(List.of(launcher)));
    }

    /** Host names separated by commas or white space. */
    public static List<String> split(String hosts) {
        return Arrays.stream(hosts.split("[,\\s]+")).filter(x -> !x.isEmpty()).toList();
    }

    static HostChoice discovered(String via, Map<String, String> env, String defaultRemote, HostCollectors.Parser parser,
                                 Launchers.Found found) {
        if (found.hosts().isEmpty()) return HERE;
        Map<String, String> e = new HashMap<>(env);
        String way = via != null ? via : env.getOrDefault(HostCollectors.VIA_ENV, "ssh");
        boolean mpirun = way.strip().equalsIgnoreCase("mpirun");
        String how = way;
        if (way.strip().equalsIgnoreCase("mpj")) {
            // the daemons the starter reached, on its -dport, unless the environment names a port
            if (found.mpjDaemonPort() > 0 && env.get(MpjDaemons.PORT_ENV) == null) {
                e.put(MpjDaemons.PORT_ENV, Integer.toString(found.mpjDaemonPort()));
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
        return new HostChoice(collectors(found.hosts(), via, e, defaultRemote, parser),
                "also reading the hosts of " + found.describe() + " (collectors started with " + how
                        + "; --hosts none: this host only)");
    }

    /**
     * Hosts nobody named are reached without questions: plain ssh gets {@code -o BatchMode=yes}, so
     * a host that wants a password fails at once (named on stderr) instead of asking on the terminal.
     */
    public static String batch(String agent) {
        String first = agent.strip().split("\\s+")[0];
        return first.equals("ssh") || first.endsWith("/ssh") ? agent.strip() + " -o BatchMode=yes" : agent;
    }

    private static HostCollectors collectors(List<String> h, String via, Map<String, String> env, String defaultRemote,
                                             HostCollectors.Parser parser) {
        return HostCollectors.of(h, via == null ? null : HostCollectors.Via.of(via), env, defaultRemote, parser);
    }
}
