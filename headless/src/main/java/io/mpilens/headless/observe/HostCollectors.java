package io.mpilens.headless.observe;

import io.mpilens.headless.ft.Liveness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * The front end's side of jobs across hosts: one collector per host ({@code mpilens collect} run
 * there with ssh, or whatever {@value #SSH_ENV} names, or by Open MPI's {@code mpirun}: {@link Via}),
 * in parallel, each answering with its host's
 * records and ranks ({@link CollectorReport}) on its standard output. Collectors that answer later
 * than the others' skew + 20% (at least {@link #FLOOR}) are cut by the same deadline rule as ranks
 * ({@link Liveness#latecomerDeadline}): a host that stops answering never holds a command up.
 * Nothing listens anywhere: the front end starts each collector and reads what it prints.
 */
public final class HostCollectors {
    /** The command that runs a command on a host, called as {@code WORDS… HOST COMMAND…} (default {@code ssh}). */
    public static final String SSH_ENV = "MPILENS_SSH";
    /** The mpilens command on the hosts (default: this mpilens's own path, for a file system the hosts share). */
    public static final String REMOTE_ENV = "MPILENS_REMOTE";
    /** The hosts to collect from when a command is given none ({@code --hosts}). */
    public static final String HOSTS_ENV = "MPILENS_HOSTS";
    /** How collectors are started when a command does not say ({@code --via}): {@code ssh} (default) or {@code mpirun}. */
    public static final String VIA_ENV = "MPILENS_VIA";
    /** The mpirun command for {@code --via mpirun} (default {@code mpirun}: the job's Open MPI on PATH), words split at spaces. */
    public static final String MPIRUN_ENV = "MPILENS_MPIRUN";

    /**
     * How a collector reaches its host. {@code ssh}: {@code $MPILENS_SSH HOST …}, for hosts one can
     * ssh to. {@code mpirun}: {@code $MPILENS_MPIRUN -np 1 --host HOST …}, one collector per host
     * started the way the job's own ranks were (Open MPI's launcher: a resource manager's launch
     * inside an allocation where ssh to the nodes is not allowed, or ssh with the MCA settings the
     * job used), its report on mpirun's forwarded standard output.
     */
    public enum Via {
        SSH, MPIRUN;

        /** {@code ssh} or {@code mpirun}, any case; anything else is an error that names the choices. */
        public static Via of(String word) {
            for (Via v : values()) if (v.name().equalsIgnoreCase(word.strip())) return v;
            throw new IllegalArgumentException("'" + word + "' is not a way to start collectors: ssh or mpirun");
        }
    }
    /** A collector is a JVM started over ssh: its start-up varies by seconds on a loaded host. */
    static final Duration FLOOR = Duration.ofSeconds(5);
    private static final Pattern SAFE_WORD = Pattern.compile("[A-Za-z0-9._:@%+=/,-]+");

    private final List<String> hosts;
    /** The words before the host name ({@code ssh}, or {@code mpirun -np 1 --host}). */
    private final List<String> launcher;
    private final boolean mpirun;
    private final List<String> remote;
    private Duration skew = Duration.ZERO;

    private final Parser parser;

    private HostCollectors(List<String> hosts, List<String> launcher, boolean mpirun, List<String> remote, Parser parser) {
        this.parser = parser;
        this.hosts = List.copyOf(hosts);
        this.launcher = List.copyOf(launcher);
        this.mpirun = mpirun;
        this.remote = List.copyOf(remote);
    }

    /** How a collector's output is read ({@code json.CollectorJson::parse}). */
    public interface Parser {
        CollectorReport parse(List<String> lines) throws IOException;
    }

    /**
     * Collectors on {@code hosts}, started {@code via} ssh ({@value #SSH_ENV}, default {@code ssh}) or
     * mpirun ({@value #MPIRUN_ENV}, default {@code mpirun}), running {@value #REMOTE_ENV} (default
     * {@code defaultRemote}) there; words split at spaces. {@code via} null: {@value #VIA_ENV}, else ssh.
     */
    public static HostCollectors of(List<String> hosts, Via via, Map<String, String> env, String defaultRemote, Parser parser) {
        for (String h : hosts) {
            if (!isHostName(h)) throw new IllegalArgumentException("'" + h + "' is not a host name");
        }
        Via v = via != null ? via : env.get(VIA_ENV) != null ? Via.of(env.get(VIA_ENV)) : Via.SSH;
        List<String> launcher = new ArrayList<>();
        if (v == Via.MPIRUN) {
            launcher.addAll(words(env.getOrDefault(MPIRUN_ENV, "mpirun")));
            launcher.addAll(List.of("-np", "1", "--host"));
        } else {
            launcher.addAll(words(env.getOrDefault(SSH_ENV, "ssh")));
        }
        return new HostCollectors(hosts, launcher, v == Via.MPIRUN, words(env.getOrDefault(REMOTE_ENV, defaultRemote)), parser);
    }

    /** Whether {@code h} can be a host name here (what {@link #of} accepts). */
    public static boolean isHostName(String h) {
        return SAFE_WORD.matcher(h).matches() && !h.startsWith("-");
    }

    private static List<String> words(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    public List<String> hosts() {
        return hosts;
    }

    /** One round: the reports of the hosts that answered in time, and why each other host did not. */
    public record Round(List<CollectorReport> reports, Map<String, String> unanswered) {
    }

    /** Every host's collector once, for one job ({@code jobId}) or the records of all ({@code null}). */
    public Round collect(String jobId, Duration timeout) {
        return collect(jobId, timeout, false);
    }

    /**
     * {@link #collect(String, Duration, boolean)} on a thread of its own (a daemon), while the
     * caller reads this host's ranks. Not on the common fork-join pool: with two CPUs that pool has
     * one thread, and a {@code watch} running on it in the same JVM (a test, an IDE) kept every
     * other round's collectors waiting behind it for good.
     */
    public CompletableFuture<Round> collectAsync(String jobId, Duration timeout, boolean frames) {
        CompletableFuture<Round> round = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                round.complete(collect(jobId, timeout, frames));
            } catch (Throwable e) {
                round.completeExceptionally(e);
            }
        }, "mpilens-collectors");
        t.setDaemon(true);
        t.start();
        return round;
    }

    /** The same; {@code frames}: also each rank's thread frames ({@code collect --frames}). */
    public Round collect(String jobId, Duration timeout, boolean frames) {
        if (jobId != null && !SAFE_WORD.matcher(jobId).matches()) throw new IllegalArgumentException("'" + jobId + "' is not a job id");
        long start = System.nanoTime();
        Map<String, Call> calls = new LinkedHashMap<>();
        for (String h : hosts) {
            List<String> cmd = new ArrayList<>(launcher);
            cmd.add(h);
            cmd.addAll(remote);
            cmd.add("collect");
            if (jobId != null) cmd.addAll(List.of("--job", jobId));
            if (jobId != null && frames) cmd.add("--frames");
            cmd.addAll(List.of("--timeout", Long.toString(Math.max(1, timeout.toSeconds()))));
            calls.put(h, new Call(h, cmd, mpirun, start, parser));
        }
        // the collector reads its ranks within twice the timeout (connect, read) and starts a JVM first
        Duration cap = timeout.multipliedBy(2).plus(FLOOR).plus(FLOOR);
        JobObserver.awaitLatecomers(calls.values(), c -> c.result, c -> c.answeredNanos, skew, FLOOR, cap, start);
        List<CollectorReport> reports = new ArrayList<>();
        Map<String, String> unanswered = new LinkedHashMap<>();
        List<Duration> answered = new ArrayList<>();
        for (Call c : calls.values()) {
            if (!c.result.isDone()) {
                c.end();
                unanswered.put(c.host, "its collector did not answer within the deadline ("
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms; host down or overloaded?)");
                continue;
            }
            try {
                reports.add(c.result.join());
                answered.add(Duration.ofNanos(c.answeredNanos));
            } catch (java.util.concurrent.CompletionException e) {
                unanswered.put(c.host, String.valueOf(e.getCause().getMessage()));
            }
        }
        if (answered.size() > 1) {
            Duration spread = answered.stream().max(Duration::compareTo).orElseThrow()
                    .minus(answered.stream().min(Duration::compareTo).orElseThrow());
            if (spread.compareTo(skew) > 0) skew = spread;
        }
        return new Round(reports, unanswered);
    }

    /** One collector run: the process we started, its output read to the end in a thread of its own. */
    private static final class Call {
        final String host;
        final CompletableFuture<CollectorReport> result = new CompletableFuture<>();
        volatile long answeredNanos = -1;
        volatile Process process;

        Call(String host, List<String> cmd, boolean mpirun, long start, Parser parser) {
            this.host = host;
            Thread t = new Thread(() -> {
                try {
                    ProcessBuilder b = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                    if (mpirun && "root".equals(System.getProperty("user.name"))) {
                        // mpirun refuses root without these, as it does for the job itself (launch.Job)
                        b.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
                        b.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
                    }
                    Process p = b.start();
                    process = p;
                    ByteArrayOutputStream err = new ByteArrayOutputStream();
                    Thread drain = new Thread(() -> copy(p.getErrorStream(), err), "mpilens-collect-" + host + "-stderr");
                    drain.setDaemon(true);
                    drain.start();
                    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    int code = p.waitFor();
                    drain.join(1_000);
                    answeredNanos = System.nanoTime() - start;
                    String why = new String(err.toByteArray(), StandardCharsets.UTF_8).strip();
                    if (code != 0 && out.isBlank()) {
                        throw new IOException("its collector failed (exit code " + code + " of '" + String.join(" ", cmd) + "')"
                                + (why.isEmpty() ? "" : ": " + lastLine(why)));
                    }
                    result.complete(parser.parse(out.lines().toList()));
                } catch (Throwable e) {
                    answeredNanos = System.nanoTime() - start;
                    result.completeExceptionally(e);
                }
            }, "mpilens-collect-" + host);
            t.setDaemon(true);
            t.start();
        }

        /** Ends the collector we started (ssh, or the stand-in, and what it started). */
        void end() {
            Process p = process;
            if (p == null) return;
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }

        private static void copy(InputStream in, ByteArrayOutputStream out) {
            try {
                in.transferTo(out);
            } catch (IOException e) {
                // the collector ended
            }
        }

        private static String lastLine(String text) {
            String[] l = text.split("\n");
            return l[l.length - 1];
        }
    }
}
