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

/**
 * The front end's side of jobs across hosts: one collector per host ({@code mpilens collect} run
 * there with ssh, or whatever {@value #SSH_ENV} names, by Open MPI's {@code mpirun}, or by MPJ
 * Express's daemons: {@link Via}),
 * in parallel, each answering with its host's
 * records and ranks ({@link CollectorReport}) on its standard output. Collectors that answer later
 * than the others' skew + 20% (at least {@link #FLOOR}) are cut by the same deadline rule as ranks
 * ({@link Liveness#latecomerDeadline}): a host that stops answering never holds a command up.
 * Nothing listens anywhere: the front end starts each collector and reads what it prints.
 */
public final class HostCollectors implements AutoCloseable {
    /** The command that runs a command on a host, called as {@code WORDS… HOST COMMAND…} (default {@code ssh}). */
    public static final String SSH_ENV = "MPILENS_SSH";
    /** The mpilens command on the hosts (default: this mpilens's own path, for a file system the hosts share). */
    public static final String REMOTE_ENV = "MPILENS_REMOTE";
    /** The hosts to collect from when a command is given none ({@code --hosts}). */
    public static final String HOSTS_ENV = "MPILENS_HOSTS";
    /** How collectors are started when a command does not say ({@code --via}): {@code ssh} (default), {@code mpirun} or {@code mpj}. */
    public static final String VIA_ENV = "MPILENS_VIA";
    /** The mpirun command for {@code --via mpirun} (default {@code mpirun}: the job's Open MPI on PATH), words split at spaces. */
    public static final String MPIRUN_ENV = "MPILENS_MPIRUN";

    /**
     * How a collector reaches its host. {@code ssh}: {@code $MPILENS_SSH HOST …}, for hosts one can
     * ssh to. {@code mpirun}: {@code $MPILENS_MPIRUN -np 1 --host HOST …}, one collector per host
     * started the way the job's own ranks were (Open MPI's launcher: a resource manager's launch
     * inside an allocation where ssh to the nodes is not allowed, or ssh with the MCA settings the
     * job used), its report on mpirun's forwarded standard output. {@code mpj}: the MPJ Express
     * daemon on each host, the launcher of a niodev job ({@link MpjDaemons}: the daemon port of the
     * job's starter, {@code $MPJ_HOME}), its report on the daemon's connection.
     */
    public enum Via {
        SSH, MPIRUN, MPJ;

        /** {@code ssh}, {@code mpirun} or {@code mpj}, any case; anything else is an error that names the choices. */
        public static Via of(String word) {
            for (Via v : values()) if (v.name().equalsIgnoreCase(word.strip())) return v;
            throw new IllegalArgumentException("'" + word + "' is not a way to start collectors: ssh, mpirun or mpj");
        }
    }
    /** A collector is a JVM started over ssh: its start-up varies by seconds on a loaded host. */
    static final Duration FLOOR = Duration.ofSeconds(5);

    private final List<String> hosts;
    /** The words before the host name ({@code ssh}, or {@code mpirun -np 1 --host}). */
    private final List<String> launcher;
    private final Via via;
    /** {@link Via#MPJ}: the daemons' port and what the ticket names; null otherwise. */
    private final MpjDaemons mpj;
    private final List<String> remote;
    private final Latecomers latecomers = new Latecomers();

    private final Parser parser;
    /** {@link #keepRunning}: one collector per host for every round, by host. */
    private boolean keep;
    private final Map<String, Session> sessions = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger rounds = new java.util.concurrent.atomic.AtomicInteger();

    private HostCollectors(List<String> hosts, List<String> launcher, Via via, MpjDaemons mpj, List<String> remote, Parser parser) {
        this.parser = parser;
        this.hosts = List.copyOf(hosts);
        this.launcher = List.copyOf(launcher);
        this.via = via;
        this.mpj = mpj;
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
     * Through MPJ Express's daemons ({@link MpjDaemons#of}): this JVM's class path runs there, and
     * {@value #REMOTE_ENV} does not apply; without {@code $MPJ_HOME}, an IllegalArgumentException.
     */
    public static HostCollectors of(List<String> hosts, Via via, Map<String, String> env, String defaultRemote, Parser parser) {
        for (String h : hosts) {
            if (!isHostName(h)) throw new IllegalArgumentException("'" + h + "' is not a host name");
        }
        Via v = via != null ? via : env.get(VIA_ENV) != null ? Via.of(env.get(VIA_ENV)) : Via.SSH;
        List<String> launcher = new ArrayList<>();
        if (v == Via.MPJ) return new HostCollectors(hosts, launcher, v, MpjDaemons.of(env), List.of(), parser);
        if (v == Via.MPIRUN) {
            launcher.addAll(words(env.getOrDefault(MPIRUN_ENV, "mpirun")));
            launcher.addAll(List.of("-np", "1", "--host"));
        } else {
            launcher.addAll(words(env.getOrDefault(SSH_ENV, "ssh")));
        }
        return new HostCollectors(hosts, launcher, v, null, words(env.getOrDefault(REMOTE_ENV, defaultRemote)), parser);
    }

    /** Whether {@code h} can be a host name here (what {@link #of} accepts). */
    public static boolean isHostName(String h) {
        return CollectorRounds.safeWord(h) && !h.startsWith("-");
    }

    private static List<String> words(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    public List<String> hosts() {
        return hosts;
    }

    /** How the collectors are started. */
    public Via via() {
        return via;
    }

    /**
     * Keeps one collector per host running from round to round (a {@code watch}): each round is a
     * line on its standard input ({@code collect --rounds}), its report ends with an end line, so a
     * host starts one JVM for the whole watch instead of one per round. A collector that does not
     * answer in time is kept (its late answer is dropped) and asked again once it has answered; one
     * that ended is started again at the next round. {@link #close} ends them (their input closed).
     * Not through MPJ Express's daemons, which pass no input on: there, one collector per round.
     */
    public HostCollectors keepRunning() {
        keep = via != Via.MPJ;
        return this;
    }

    /**
     * Ends the collectors kept running: every input closed first (they end by themselves), then
     * those not ended within 2 s in all are stopped (not 2 s each: a watch over many hosts ends at once).
     */
    @Override
    public void close() {
        for (Session s : sessions.values()) s.closeInput();
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
        for (Session s : sessions.values()) s.stop(until);
        sessions.clear();
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
        if (jobId != null && !CollectorRounds.safeWord(jobId)) throw new IllegalArgumentException("'" + jobId + "' is not a job id");
        long start = System.nanoTime();
        Map<String, Call> calls = new LinkedHashMap<>();
        Map<String, String> unanswered = new LinkedHashMap<>();
        int round = rounds.incrementAndGet();
        for (String h : hosts) {
            List<String> args = new ArrayList<>(List.of("collect"));
            if (keep) {
                args.addAll(List.of("--rounds", "--timeout", Long.toString(Math.max(1, timeout.toSeconds()))));
                Session session = sessions.get(h);
                if (session != null && session.ended()) session = null;
                if (session == null) sessions.put(h, session = new Session(h, describe(h, args), input -> start(h, args, input), parser));
                Call c = session.ask(round, jobId, frames, start);
                if (c == null) unanswered.put(h, "its collector is still answering an earlier round (host overloaded?)");
                else calls.put(h, c);
                continue;
            }
            if (jobId != null) args.addAll(List.of("--job", jobId));
            if (jobId != null && frames) args.add("--frames");
            args.addAll(List.of("--timeout", Long.toString(Math.max(1, timeout.toSeconds()))));
            calls.put(h, Call.run(h, describe(h, args), input -> start(h, args, input), start, parser));
        }
        // the collector reads its ranks within twice the timeout (connect, read) and starts a JVM first
        Duration cap = timeout.multipliedBy(2).plus(FLOOR).plus(FLOOR);
        latecomers.await(calls.values(), c -> c.result, c -> c.answeredNanos, FLOOR, cap, start);
        List<CollectorReport> reports = new ArrayList<>();
        for (Call c : calls.values()) {
            if (!c.result.isDone()) {
                c.end();
                unanswered.put(c.host, "its collector did not answer within the deadline ("
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms; host down or overloaded?)");
                continue;
            }
            try {
                reports.add(c.result.join());
            } catch (java.util.concurrent.CompletionException e) {
                unanswered.put(c.host, String.valueOf(e.getCause().getMessage()));
            }
        }
        return new Round(reports, unanswered);
    }

    /** The command that starts a collector on {@code host} ({@code args}: {@code collect …}). */
    List<String> command(String host, List<String> args) {
        List<String> cmd = new ArrayList<>(launcher);
        cmd.add(host);
        cmd.addAll(remote);
        cmd.addAll(args);
        return cmd;
    }

    /** How the collector on {@code host} is started, for messages. */
    private String describe(String host, List<String> args) {
        return via == Via.MPJ ? mpj.describe(host, args) : "'" + String.join(" ", command(host, args)) + "'";
    }

    /** Starts a collector's process, {@code mpilens ARGS…} on {@code host} ({@code input}: what it reads, /dev/null or a pipe). */
    private Process start(String host, List<String> args, ProcessBuilder.Redirect input) throws IOException {
        if (via == Via.MPJ) return mpj.start(host, args);
        ProcessBuilder b = new ProcessBuilder(command(host, args)).redirectInput(input);
        if (via == Via.MPIRUN && "root".equals(System.getProperty("user.name"))) {
            // mpirun refuses root without these, as it does for the job itself (launch.Job)
            b.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            b.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        return b.start();
    }

    /** Starts one collector ({@code input}: what it reads). */
    private interface Starter {
        Process start(ProcessBuilder.Redirect input) throws IOException;
    }

    /** One collector's answer to a round: its report, and when it came. */
    private static final class Call {
        final String host;
        final long start;
        final CompletableFuture<CollectorReport> result = new CompletableFuture<>();
        volatile long answeredNanos = -1;
        /** The process of a collector started for this round alone (ended when it is late); null for a kept one. */
        volatile Process process;

        Call(String host, long start) {
            this.host = host;
            this.start = start;
        }

        void answered(CollectorReport r) {
            answeredNanos = System.nanoTime() - start;
            result.complete(r);
        }

        void failed(Throwable e) {
            answeredNanos = System.nanoTime() - start;
            result.completeExceptionally(e);
        }

        /** A collector for this round alone: its output read to the end in a thread of its own. */
        static Call run(String host, String command, Starter starter, long start, Parser parser) {
            Call call = new Call(host, start);
            Thread t = new Thread(() -> call.runCollector(command, starter, parser), "mpilens-collect-" + host);
            t.setDaemon(true);
            t.start();
            return call;
        }

        private void runCollector(String command, Starter starter, Parser parser) {
                try {
                    Process p = starter.start(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                    process = p;
                    ByteArrayOutputStream err = new ByteArrayOutputStream();
                    Thread drain = new Thread(() -> copy(p.getErrorStream(), err), "mpilens-collect-" + host + "-stderr");
                    drain.setDaemon(true);
                    drain.start();
                    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    int code = p.waitFor();
                    drain.join(1_000);
                    String why = new String(err.toByteArray(), StandardCharsets.UTF_8).strip();
                    if (code != 0 && out.isBlank()) {
                        throw new IOException("its collector failed (exit code " + code + " of " + command + ")"
                                + (why.isEmpty() ? "" : ": " + lastLine(why)));
                    }
                    answered(parser.parse(out.lines().toList()));
                } catch (Throwable e) {
                    failed(e);
                }
        }

        /** Ends the collector we started for this round (none for a kept one). */
        void end() {
            Process p = process;
            if (p != null) destroyTree(p);
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

    /**
     * A collector kept running ({@link #keepRunning}): started once with {@code collect --rounds},
     * asked for each round on its standard input; its standard output read line by line in a
     * thread of its own, each answer up to its end line going to the round that asked for it (an
     * answer to a round given up on is dropped).
     */
    private static final class Session {
        final String host;
        final String command;
        private final Process process;
        private final java.io.Writer input;
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private volatile boolean ended;
        /** The round asked and not answered yet, and its call; at most one at a time. */
        private int askedRound = -1;
        private Call asked;

        Session(String host, String command, Starter starter, Parser parser) {
            this.host = host;
            this.command = command;
            Process p = null;
            java.io.Writer w = null;
            try {
                p = starter.start(ProcessBuilder.Redirect.PIPE);
                w = new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                ended = true;
                failedToStart = e;
            }
            process = p;
            input = w;
            if (p == null) return;
            Process started = p;
            Thread drain = new Thread(() -> Call.copy(started.getErrorStream(), err), "mpilens-collector-" + host + "-stderr");
            drain.setDaemon(true);
            drain.start();
            Thread reader = new Thread(() -> read(started, parser), "mpilens-collector-" + host);
            reader.setDaemon(true);
            reader.start();
        }

        private IOException failedToStart;

        boolean ended() {
            return ended;
        }

        /** Asks for round {@code n}; null when the previous round is not answered yet. */
        synchronized Call ask(int n, String jobId, boolean frames, long start) {
            Call c = new Call(host, start);
            if (failedToStart != null) {
                c.failed(new IOException("its collector could not be started (" + command + "): "
                        + failedToStart.getMessage()));
                return c;
            }
            if (asked != null && !ended) return null;
            asked = c;
            askedRound = n;
            try {
                input.write(CollectorRounds.request(n, jobId, frames) + "\n");
                input.flush();
            } catch (IOException e) {
                ended = true;
                asked = null;
                c.failed(new IOException("its collector ended (" + e.getMessage() + ")"));
            }
            return c;
        }

        private synchronized Call answered(int n) {
            if (n != askedRound) return null; // a round given up on: dropped
            Call c = asked;
            asked = null;
            return c;
        }

        private void read(Process p, Parser parser) {
            List<String> lines = new ArrayList<>();
            try (java.io.BufferedReader out = new java.io.BufferedReader(
                    new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    int n = CollectorRounds.ended(line);
                    if (n < 0) {
                        lines.add(line);
                        continue;
                    }
                    Call c = answered(n);
                    List<String> answer = lines;
                    lines = new ArrayList<>();
                    if (c == null) continue;
                    if (answer.isEmpty()) {
                        String why = new String(err.toByteArray(), StandardCharsets.UTF_8).strip();
                        c.failed(new IOException("its collector had nothing to report" + (why.isEmpty() ? "" : ": " + Call.lastLine(why))));
                        continue;
                    }
                    try {
                        c.answered(parser.parse(answer));
                    } catch (Throwable e) {
                        c.failed(e);
                    }
                }
            } catch (IOException e) {
                // the collector's output closed: it ended
            }
            Call c;
            synchronized (this) {
                ended = true;
                c = asked;
                asked = null;
            }
            if (c != null) {
                String why = new String(err.toByteArray(), StandardCharsets.UTF_8).strip();
                Integer code = null;
                try {
                    if (p.waitFor(1, java.util.concurrent.TimeUnit.SECONDS)) code = p.exitValue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                c.failed(new IOException("its collector ended (exit code " + (code == null ? "?" : code) + " of "
                        + command + ")" + (why.isEmpty() ? "" : ": " + Call.lastLine(why))));
            }
        }

        /** Closes its input: the collector ends at the end of its input. */
        void closeInput() {
            if (process == null) return;
            try {
                input.close();
            } catch (IOException e) {
                // ended already
            }
        }

        /** Stops it (and what it started) unless it has ended by {@code until} ({@link System#nanoTime}). */
        void stop(long until) {
            if (process == null) return;
            try {
                if (process.waitFor(Math.max(0, until - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS)) return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            destroyTree(process);
        }
    }

    /** Ends a collector's process (ssh, or the stand-in) and what it started. */
    private static void destroyTree(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }
}
