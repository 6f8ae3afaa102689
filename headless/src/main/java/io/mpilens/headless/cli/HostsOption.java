package io.mpilens.headless.cli;

import io.mpilens.headless.observe.HostCollectors;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --hosts H1,H2,…}: also the ranks on other hosts, through a collector started on each. */
final class HostsOption {
    @Option(names = "--hosts", split = ",", paramLabel = "HOST",
            description = {"Also the job's ranks on these hosts: on each, 'mpilens collect' is started with ssh"
                    + " ($MPILENS_SSH, default ssh; the command there: $MPILENS_REMOTE, default this mpilens's own path)"
                    + " and its report merged in; a host that does not answer in time is reported, its ranks"
                    + " UNAVAILABLE. Default: $MPILENS_HOSTS."})
    List<String> hosts;

    /** The collectors to ask, null when no host was given. */
    HostCollectors collectors(Map<String, String> env) {
        List<String> h = hosts;
        if (h == null && env.get(HostCollectors.HOSTS_ENV) != null) {
            h = Arrays.stream(env.get(HostCollectors.HOSTS_ENV).split("[,\\s]+")).filter(x -> !x.isEmpty()).toList();
        }
        if (h == null || h.isEmpty()) return null;
        String home = System.getProperty("mpilens.home");
        return HostCollectors.of(h, env, home != null ? java.nio.file.Path.of(home, "mpilens").toString() : "mpilens",
                io.mpilens.headless.json.CollectorJson::parse);
    }
}
