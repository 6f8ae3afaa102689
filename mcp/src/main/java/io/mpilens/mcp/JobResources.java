package io.mpilens.mcp;

import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.mpilens.headless.job.JobDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A resource per job: {@code mpilens://job/ID}, the job's model as {@code mpilens watch --json}
 * prints it (mpilens-ft/1: ranks, communicators, hosts, the transitions seen), and
 * {@code mpilens://job/ID/handles}, its handles as {@code mpilens handles --json --job ID} prints
 * them (mpilens/1). A client subscribed to either gets {@code notifications/resources/updated}
 * whenever {@code watch} would print a transition of that job: the job is followed by the CLI's
 * {@link Watch} only while someone is subscribed, and no longer once it has ended.
 */
final class JobResources {
    static final String PREFIX = "mpilens://job/";
    static final String MODEL = PREFIX + "{id}";
    static final String HANDLES = PREFIX + "{id}/handles";
    private static final String JSON = "application/json";
    private static final int FIRST_ROUND_SECONDS = 60;

    private final Map<String, String> env;
    private final ReentrantLock oneAtATime;
    private final Cancellation cancellation;
    private final PrintStream log;
    private volatile McpSyncServer server;
    /** The job resources the SDK lists, by URI (refreshed when a client asks for the list). */
    private final Set<String> listed = ConcurrentHashMap.newKeySet();
    /** URIs the client subscribed to (the SDK keeps its own set: it sends only to those). */
    private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
    /** Subscribe and unsubscribe requests not answered yet: request key to "+uri" or "-uri". */
    private final Map<String, String> pending = new ConcurrentHashMap<>();
    /** The jobs followed for their subscribers. */
    private final Map<String, Follower> followers = new ConcurrentHashMap<>();

    JobResources(Map<String, String> env, ReentrantLock oneAtATime, Cancellation cancellation, PrintStream log) {
        this.env = env;
        this.oneAtATime = oneAtATime;
        this.cancellation = cancellation;
        this.log = log;
    }

    List<SyncResourceTemplateSpecification> templates() {
        return List.of(
                new SyncResourceTemplateSpecification(McpSchema.ResourceTemplate.builder(MODEL, "job model")
                        .title("An MPI job's model").mimeType(JSON)
                        .description("The job's ranks, communicators and hosts with their states and the transitions"
                                + " seen: 'mpilens watch --json --job ID' (mpilens-ft/1). Subscribe to hear of each"
                                + " transition 'watch' would print.").build(), this::read),
                new SyncResourceTemplateSpecification(McpSchema.ResourceTemplate.builder(HANDLES, "job handles")
                        .title("An MPI job's handles").mimeType(JSON)
                        .description("The MPI handles of every rank of the job, orphans included: 'mpilens handles"
                                + " --json --job ID' (mpilens/1).").build(), this::read));
    }

    void serveOn(McpSyncServer s) {
        server = s;
    }

    /** Registers a resource for each job recorded on this host, and drops those of jobs whose records went. */
    void refreshList() {
        McpSyncServer s = server;
        if (s == null) return;
        List<JobDirectory.JobEntry> jobs;
        try {
            jobs = JobDirectory.forCurrentUser(env).jobs();
        } catch (IOException | RuntimeException e) {
            log.println("mpilens mcp: cannot list the jobs for resources/list: " + e.getMessage());
            return;
        }
        Set<String> now = new HashSet<>();
        for (JobDirectory.JobEntry j : jobs) {
            String uri = PREFIX + j.id();
            now.add(uri);
            if (!listed.add(uri)) continue;
            s.addResource(new SyncResourceSpecification(McpSchema.Resource.builder(uri, "job " + j.id())
                    .title("MPI job " + j.id()).mimeType(JSON)
                    .description("Job " + j.id() + ": its model as 'mpilens watch --json' prints it (mpilens-ft/1);"
                            + " its handles at " + uri + "/handles").build(), this::read));
        }
        for (String uri : List.copyOf(listed)) {
            if (now.contains(uri)) continue;
            listed.remove(uri);
            s.removeResource(uri);
        }
    }

    private record Address(String job, boolean handles) {
    }

    private static Address address(String uri) {
        if (uri == null || !uri.startsWith(PREFIX)) return null;
        String rest = uri.substring(PREFIX.length());
        boolean handles = rest.endsWith("/handles");
        String job = handles ? rest.substring(0, rest.length() - "/handles".length()) : rest;
        return job.isEmpty() || job.contains("/") ? null : new Address(job, handles);
    }

    private McpSchema.ReadResourceResult read(McpSyncServerExchange exchange, McpSchema.ReadResourceRequest request) {
        String uri = request.uri();
        Address a = address(uri);
        if (a == null) {
            throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND).message("mpilens: no resource " + uri
                    + "; a job's are " + PREFIX + "ID and " + PREFIX + "ID/handles (resources/list names the jobs)").build();
        }
        // the call is closed last: it clears what a cancellation interrupted
        try (Cancellation.Call call = cancellation.begin(request.meta())) {
            String text;
            try {
                if (a.handles()) {
                    text = document(uri, List.of("handles", "--json", "--job=" + a.job()));
                } else {
                    Follower f = followers.get(a.job());
                    String latest = f == null ? null : f.latest;
                    text = latest != null ? latest : freshModel(uri, a.job());
                }
            } catch (InterruptedException e) {
                throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message("mpilens: reading " + uri
                        + (call.cancelled() ? " was cancelled" : " was interrupted")).build();
            }
            return McpSchema.ReadResourceResult.builder(List.of(McpSchema.TextResourceContents.builder(uri, text)
                    .mimeType(JSON).build())).build();
        }
    }

    /** A command's JSON document, read while no tool call reads the ranks; its own message as the error otherwise. */
    private String document(String uri, List<String> args) throws InterruptedException {
        CliRun run;
        oneAtATime.lockInterruptibly();
        try {
            run = CliRun.of(args, env, null);
        } finally {
            oneAtATime.unlock();
        }
        String out = run.stdout().strip();
        // exit code 3: some ranks did not answer; the document says which, as the handles tool's answer does
        if (out.startsWith("{") && (run.exitCode() == 0 || run.exitCode() == 3)) return out;
        throw failed(uri, run);
    }

    /** The model after one round of {@code watch}: its first line, then the watch is stopped. */
    private String freshModel(String uri, String job) throws InterruptedException {
        CompletableFuture<String> first = new CompletableFuture<>();
        oneAtATime.lockInterruptibly();
        try {
            Watch w = Watch.start(job, env, first::complete);
            w.ended().thenRun(() -> first.complete(null));
            try {
                // a round is bounded by the ranks' timeouts; a job with no rank recorded prints nothing
                String model = first.get(FIRST_ROUND_SECONDS, TimeUnit.SECONDS);
                if (model != null) return model;
                throw failed(uri, w.ended().get());
            } catch (TimeoutException e) {
                throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message("mpilens: watch printed no model of job "
                        + job + " within " + FIRST_ROUND_SECONDS + " s: does it have ranks? ('jobs' lists them)").build();
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            } finally {
                w.stopAndWait(10_000);
            }
        } finally {
            oneAtATime.unlock();
        }
    }

    private static McpError failed(String uri, CliRun run) {
        String said = run == null || run.stderr().isEmpty() ? "mpilens: reading " + uri + " failed with exit code "
                + (run == null ? "?" : run.exitCode()) + " and no message"
                : String.join("\n", run.stderr().stream().filter(l -> !l.startsWith("mpilens watch: ")).toList());
        // the CLI's exit code 2 with --job: no such job (or a usage error: a job id it refuses)
        int code = run != null && run.exitCode() == 2 ? McpSchema.ErrorCodes.RESOURCE_NOT_FOUND
                : McpSchema.ErrorCodes.INTERNAL_ERROR;
        return McpError.builder(code).message(said).build();
    }

    // ------------------------------------------------------------------ subscriptions

    /** A subscribe (or unsubscribe) request seen on its way in; it takes effect when the SDK has answered it. */
    void subscribing(String requestKey, String uri, boolean on) {
        if (uri != null) pending.put(requestKey, (on ? "+" : "-") + uri);
    }

    boolean awaitingAnswers() {
        return !pending.isEmpty();
    }

    /** The server answered request {@code requestKey}. */
    void answered(String requestKey, boolean ok) {
        String p = pending.remove(requestKey);
        if (p == null || !ok) return;
        String uri = p.substring(1);
        if (p.charAt(0) == '+') {
            subscribed.add(uri);
            Address a = address(uri);
            if (a != null) follow(a.job());
        } else {
            subscribed.remove(uri);
            Address a = address(uri);
            if (a != null && subscribers(a.job()).isEmpty()) {
                Follower f = followers.remove(a.job());
                if (f != null) {
                    f.stop();
                    log.println("mpilens mcp: no longer following job " + a.job() + ": no client is subscribed to it");
                }
            }
        }
    }

    private List<String> subscribers(String job) {
        return subscribed.stream().filter(u -> {
            Address a = address(u);
            return a != null && a.job().equals(job);
        }).toList();
    }

    private void follow(String job) {
        Follower f = new Follower(job);
        if (followers.putIfAbsent(job, f) != null) return;
        log.println("mpilens mcp: following job " + job + " for its subscribers (mpilens watch, a round a second)");
        f.start();
    }

    /** Every follower stops (the server is closing). */
    void close() {
        for (Follower f : followers.values()) f.stop();
        followers.clear();
    }

    /** A job followed while someone is subscribed to it: each model watch prints is news for its subscribers. */
    private final class Follower {
        final String job;
        private volatile Watch watch;
        volatile String latest;

        Follower(String job) {
            this.job = job;
        }

        void start() {
            watch = Watch.start(job, env, this::transition);
            watch.ended().thenAccept(this::ended);
        }

        void stop() {
            Watch w = watch;
            if (w != null) w.stop();
        }

        private void transition(String model) {
            latest = model;
            McpSyncServer s = server;
            if (s == null) return;
            for (String uri : subscribers(job)) {
                try {
                    s.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri));
                } catch (RuntimeException e) {
                    log.println("mpilens mcp: could not tell the client that " + uri + " changed: " + e.getMessage());
                }
            }
        }

        private void ended(CliRun run) {
            followers.remove(job, this);
            if (watch.stopping()) return;
            if (run != null && run.exitCode() == 0) {
                log.println("mpilens mcp: job " + job + " has ended: no longer following it");
            } else {
                log.println("mpilens mcp: cannot follow job " + job + ": " + (run == null ? "the watch failed"
                        : String.join("; ", run.stderr().stream().filter(l -> !l.startsWith("mpilens watch: ")).toList())));
            }
        }
    }
}
