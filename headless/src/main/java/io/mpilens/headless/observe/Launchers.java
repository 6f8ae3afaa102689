package io.mpilens.headless.observe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The hosts a job's ranks run on, found where the job was launched: this user's Open MPI
 * launchers on this host ({@code mpirun}, {@code mpiexec}, {@code orterun}, {@code prterun}) and MPJ
 * Express's starter ({@code java -jar …/starter.jar}, what {@code mpjrun.sh} runs: its machines file
 * for {@code niodev} and {@code hybdev}), read
 * from {@code /proc} (arguments, working directory, environment), so the commands that take
 * {@code --hosts} find the other hosts of a job launched here without being told. Where a launcher
 * puts its ranks: its {@code --host}/{@code -H} list, else its hostfile ({@code --hostfile},
 * {@code --machinefile}, {@code --default-hostfile}, {@code orte_default_hostfile}), else the batch
 * allocation it runs in ({@code SLURM_JOB_NODELIST}, {@code PBS_NODEFILE}); and how it reached them
 * ({@code plm_rsh_agent}, the command the collectors are then started with). Options are read up to
 * the program the launcher starts; an option this reader does not know to take a value ends the
 * reading there (the hosts named after it are missed, never invented).
 */
public final class Launchers {
    /** Launcher command names (the last part of argv[0]). */
    static final Set<String> NAMES = Set.of("mpirun", "mpiexec", "orterun", "prterun",
            "mpirun.openmpi", "mpiexec.openmpi", "orterun.openmpi");

    /** Open MPI 4 launcher options that take one value (both dash forms are accepted). */
    private static final Set<String> ONE_VALUE = Set.of("np", "n", "c", "N", "npernode", "npersocket", "map-by",
            "rank-by", "bind-to", "x", "prefix", "wdir", "wd", "path", "output-filename", "timeout", "app",
            "preload-files", "cpus-per-proc", "cpus-per-rank", "rankfile", "rf", "cpu-set", "stdin", "launch-agent",
            "personality", "ompi-server", "am", "tune", "report-uri", "report-pid", "host", "H", "hostfile",
            "machinefile", "default-hostfile", "preload-files-dest-dir", "debugger", "max-vm-size", "ppr");
    /** MPJ Express starter options that take a value. */
    private static final Set<String> MPJ_ONE_VALUE = Set.of("np", "dev", "machinesfile", "dport", "wdir", "cp",
            "classpath", "psl", "mpjport", "mxboardnum", "headnodeip", "jar", "src");
    /** Options that take a key and a value. */
    private static final Set<String> TWO_VALUES = Set.of("mca", "gmca");

    private Launchers() {
    }

    /**
     * One launcher process and where it put ranks; {@code mpjDaemonPort}: the daemon port an MPJ
     * Express starter reached its machines on ({@code -dport}), 0 when it did not say or is no starter.
     */
    public record Launch(long pid, String command, List<String> hosts, String rshAgent, String from, int mpjDaemonPort) {
        public Launch(long pid, String command, List<String> hosts, String rshAgent, String from) {
            this(pid, command, hosts, rshAgent, from, 0);
        }

        /** These hosts minus this one. */
        public List<String> otherHosts() {
            return hosts.stream().filter(h -> !LocalProcesses.isLocal(h) && !h.equals("127.0.0.1")
                    && HostCollectors.isHostName(h)).toList();
        }
    }

    /**
     * What the launchers of this user on this host say: the other hosts, and one way to reach them
     * ({@code rshAgent}; {@code mpjDaemonPort}: the MPJ Express starters' {@code -dport} when they
     * all gave the same, else 0).
     */
    public record Found(List<Launch> launches, List<String> hosts, String rshAgent, int mpjDaemonPort) {
        /** One line for the user: which launcher named which hosts. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            for (Launch l : launches) {
                if (l.otherHosts().isEmpty()) continue;
                if (b.length() > 0) b.append("; ");
                b.append(l.command()).append(" pid ").append(l.pid()).append(" (").append(l.from()).append("): ")
                        .append(String.join(",", l.otherHosts()));
            }
            return b.toString();
        }
    }

    /** This user's launchers on this host, and the other hosts they put ranks on (none: an empty list). */
    public static Found onThisHost() {
        return found(scan(Path.of("/proc")));
    }

    static Found found(List<Launch> launches) {
        Set<String> hosts = new LinkedHashSet<>();
        Set<String> agents = new LinkedHashSet<>();
        Set<Integer> ports = new LinkedHashSet<>();
        for (Launch l : launches) {
            if (l.otherHosts().isEmpty()) continue;
            hosts.addAll(l.otherHosts());
            agents.add(l.rshAgent() == null ? "" : l.rshAgent());
            if (l.mpjDaemonPort() > 0) ports.add(l.mpjDaemonPort());
        }
        // one agent for all of them, or the default (ssh) when the launchers disagree
        String agent = agents.size() == 1 ? agents.iterator().next() : "";
        return new Found(List.copyOf(launches), List.copyOf(hosts), agent.isEmpty() ? null : agent,
                ports.size() == 1 ? ports.iterator().next() : 0);
    }

    /** The launchers among the processes under {@code proc} that belong to this user. */
    static List<Launch> scan(Path proc) {
        List<Launch> out = new ArrayList<>();
        Object self;
        try {
            self = Files.getAttribute(proc.resolve("self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return out; // no /proc: nothing to find
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
            for (Path dir : dirs) {
                Launch l = read(dir, self);
                if (l != null) out.add(l);
            }
        } catch (IOException | RuntimeException e) {
            // what was read so far
        }
        return out;
    }

    /**
     * The launcher with this pid, this user's, and the hosts it puts ranks on; null when that
     * process is no launcher, not this user's, or gone (the Eclipse launch asks it of its own mpirun).
     */
    public static Launch of(long pid) {
        Path proc = Path.of("/proc");
        try {
            return read(proc.resolve(Long.toString(pid)), Files.getAttribute(proc.resolve("self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * What a launcher started with {@code argv} (argv[0] the launcher), this environment and working
     * directory would put where: read before it runs (the Eclipse launch, to give a job across
     * hosts an id of its own). Its pid is 0.
     */
    public static Launch ofArguments(List<String> argv, Map<String, String> env, Path cwd) {
        return parse(0, argv, env, file -> readLines(cwd, file));
    }

    /** The launcher whose /proc directory is {@code dir}, if it is one of user {@code self}'s; else null. */
    private static Launch read(Path dir, Object self) {
        try {
            if (!self.equals(Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS))) return null;
            List<String> argv = nulSeparated(Files.readAllBytes(dir.resolve("cmdline")));
            if (argv.isEmpty() || !(NAMES.contains(baseName(argv.get(0))) || mpjStarter(argv) > 0)) return null;
            Map<String, String> environ = environ(Files.readAllBytes(dir.resolve("environ")));
            Path cwd = dir.resolve("cwd");
            return parse(Long.parseLong(dir.getFileName().toString()), argv, environ, file -> readLines(cwd, file));
        } catch (IOException | RuntimeException e) {
            return null; // gone meanwhile, or not readable: not a launcher we can read
        }
    }

    /**
     * A launcher's hosts from its arguments ({@code argv}, argv[0] the launcher), environment and
     * files ({@code readFile}: a path as the launcher gave it, relative to its working directory, to
     * its lines; null when it cannot be read).
     */
    static Launch parse(long pid, List<String> argv, Map<String, String> environ, Function<String, List<String>> readFile) {
        int starter = mpjStarter(argv);
        if (starter > 0) return parseMpj(pid, argv, starter, readFile);
        List<String> hostList = null;
        String hostfile = null;
        String agent = environ.get("OMPI_MCA_plm_rsh_agent");
        String defaultHostfile = environ.get("OMPI_MCA_orte_default_hostfile");
        for (int i = 1; i < argv.size(); i++) {
            String a = argv.get(i);
            if (!a.startsWith("-") || a.equals("-") || a.equals("--")) break; // the program
            String name = a.replaceFirst("^--?", "");
            String inline = null;
            int eq = name.indexOf('=');
            if (eq > 0) {
                inline = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (TWO_VALUES.contains(name)) {
                if (i + 2 >= argv.size()) break;
                String key = argv.get(i + 1), value = argv.get(i + 2);
                i += 2;
                if (key.equals("plm_rsh_agent")) agent = value;
                else if (key.equals("orte_default_hostfile")) defaultHostfile = value;
                continue;
            }
            if (!ONE_VALUE.contains(name)) continue; // a flag
            String value = inline;
            if (value == null) {
                if (i + 1 >= argv.size()) break;
                value = argv.get(++i);
            }
            switch (name) {
                case "host", "H" -> {
                    if (hostList == null) hostList = new ArrayList<>();
                    for (String h : value.split(",")) addHost(hostList, h);
                }
                case "hostfile", "machinefile" -> hostfile = value;
                case "default-hostfile" -> defaultHostfile = value;
                default -> {
                }
            }
        }
        String command = baseName(argv.get(0));
        List<String> hosts;
        String from;
        if (hostList != null) {
            hosts = hostList;
            from = "--host";
        } else if (hostfile != null || defaultHostfile != null) {
            String f = hostfile != null ? hostfile : defaultHostfile;
            hosts = hostfileHosts(readFile.apply(f));
            from = "hostfile " + f;
        } else if (environ.get("SLURM_JOB_NODELIST") != null) {
            hosts = expandNodeList(environ.get("SLURM_JOB_NODELIST"));
            from = "SLURM_JOB_NODELIST";
        } else if (environ.get("PBS_NODEFILE") != null) {
            hosts = hostfileHosts(readFile.apply(environ.get("PBS_NODEFILE")));
            from = "PBS_NODEFILE";
        } else {
            hosts = List.of();
            from = "no host named";
        }
        return new Launch(pid, command, List.copyOf(new LinkedHashSet<>(hosts)), firstAgent(agent), from);
    }

    /** Where {@code -jar …/starter.jar} (MPJ Express's starter) ends in {@code argv}: the index after it, or -1. */
    static int mpjStarter(List<String> argv) {
        if (argv.isEmpty() || !baseName(argv.get(0)).startsWith("java")) return -1;
        for (int i = 1; i + 1 < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals("-jar")) return baseName(argv.get(i + 1)).equals("starter.jar") ? i + 2 : -1;
            if (!a.startsWith("-")) return -1; // the JVM's main class: not the starter
            if (a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")) i++;
        }
        return -1;
    }

    /**
     * MPJ Express's starter: with {@code -dev niodev} or {@code hybdev}, the hosts of its machines
     * file ({@code -machinesfile}, else {@code machines} in its working directory); with
     * {@code multicore} (the default) every rank is a thread here.
     */
    private static Launch parseMpj(long pid, List<String> argv, int from, Function<String, List<String>> readFile) {
        String dev = "multicore";
        String machines = null;
        int dport = 0;
        for (int i = from; i < argv.size(); i++) {
            String a = argv.get(i);
            if (!a.startsWith("-")) break; // the class
            String name = a.substring(1);
            if (!MPJ_ONE_VALUE.contains(name)) continue; // a flag, or a JVM option passed on to the ranks
            if (i + 1 >= argv.size()) break;
            String value = argv.get(++i);
            if (name.equals("dev")) dev = value;
            else if (name.equals("machinesfile")) machines = value;
            else if (name.equals("dport")) dport = portOrZero(value);
        }
        if (dev.equals("multicore")) return new Launch(pid, "mpjrun", List.of(), null, "-dev multicore");
        String file = machines != null ? machines : "machines";
        return new Launch(pid, "mpjrun", List.copyOf(new LinkedHashSet<>(hostfileHosts(readFile.apply(file)))), null,
                "machines file " + file, dport);
    }

    private static int portOrZero(String value) {
        try {
            int p = Integer.parseInt(value.strip());
            return p > 0 && p < 65_536 ? p : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code plm_rsh_agent} lists alternatives ({@code "ssh : rsh"}): Open MPI takes the first that exists. */
    private static String firstAgent(String agent) {
        if (agent == null) return null;
        for (String alt : agent.split(":")) {
            String a = alt.strip();
            if (!a.isEmpty()) return a;
        }
        return null;
    }

    /** {@code node}, {@code node:slots}, {@code user@node}: the node. */
    private static void addHost(List<String> hosts, String entry) {
        String h = entry.strip();
        int at = h.indexOf('@');
        if (at >= 0) h = h.substring(at + 1);
        int colon = h.indexOf(':');
        if (colon >= 0) h = h.substring(0, colon);
        if (!h.isEmpty()) hosts.add(h);
    }

    /** A hostfile's hosts: the first word of each line ({@code node slots=4}), comments after {@code #}. */
    static List<String> hostfileHosts(List<String> lines) {
        List<String> hosts = new ArrayList<>();
        if (lines == null) return hosts;
        for (String line : lines) {
            int hash = line.indexOf('#');
            String l = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (l.isEmpty()) continue;
            addHost(hosts, l.split("\\s+")[0]);
        }
        return hosts;
    }

    /**
     * A Slurm node list, {@code node[01-03,07],gpu5} or {@code rack[1-2]-n[1-2]}, one name per node
     * (zero padding kept); a list it cannot read is taken word by word.
     */
    static List<String> expandNodeList(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0, from = 0;
        for (int i = 0; i <= list.length(); i++) {
            char c = i < list.length() ? list.charAt(i) : ',';
            if (c == '[') depth++;
            else if (c == ']') depth--;
            else if (c == ',' && depth == 0) {
                String item = list.substring(from, i).strip();
                if (!item.isEmpty()) expandItem(item, out);
                from = i + 1;
            }
        }
        return out;
    }

    private static void expandItem(String item, List<String> out) {
        int open = item.indexOf('[');
        int close = open < 0 ? -1 : item.indexOf(']', open);
        if (open < 0 || close < 0) {
            out.add(item);
            return;
        }
        String prefix = item.substring(0, open), rest = item.substring(close + 1);
        for (String range : item.substring(open + 1, close).split(",")) {
            int dash = range.indexOf('-');
            try {
                if (dash < 0) {
                    expandItem(prefix + range.strip() + rest, out);
                    continue;
                }
                String lo = range.substring(0, dash).strip(), hi = range.substring(dash + 1).strip();
                long a = Long.parseLong(lo), b = Long.parseLong(hi);
                if (b - a > 65_536) throw new NumberFormatException("too many nodes");
                for (long n = a; n <= b; n++) {
                    String num = Long.toString(n);
                    while (num.length() < lo.length()) num = "0" + num;
                    expandItem(prefix + num + rest, out);
                }
            } catch (NumberFormatException e) {
                out.add(item);
                return;
            }
        }
    }

    private static boolean isPid(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) if (!Character.isDigit(name.charAt(i))) return false;
        return true;
    }

    private static String baseName(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    private static List<String> nulSeparated(byte[] bytes) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                out.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
                from = i + 1;
            }
        }
        if (from < bytes.length) out.add(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8));
        return out;
    }

    private static Map<String, String> environ(byte[] bytes) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String kv : nulSeparated(bytes)) {
            int eq = kv.indexOf('=');
            if (eq > 0) env.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return env;
    }

    private static List<String> readLines(Path cwd, String file) {
        try {
            Path p = Path.of(file);
            return Files.readAllLines(p.isAbsolute() ? p : cwd.resolve(p), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
