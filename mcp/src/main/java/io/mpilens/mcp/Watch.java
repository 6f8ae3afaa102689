package io.mpilens.mcp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * {@code mpilens watch --json --job ID}, the CLI's own command, run in this process on a thread of
 * its own: each line it prints is the job's model after a round in which {@code watch} saw a
 * transition (its first round always has some: every rank's first state), handed to {@code onModel}.
 * It ends by itself when the job has ended or its records went, or when {@link #stop}ped. Nothing is
 * suspended but each thread while its frames are read, as {@code watch} does.
 */
final class Watch {
    private final Thread thread;
    private final CompletableFuture<CliRun> ended = new CompletableFuture<>();
    private volatile boolean stopping;

    private Watch(String job, Map<String, String> env, Consumer<String> onModel) {
        thread = new Thread(() -> {
            CliRun run = null;
            try {
                run = CliRun.of(List.of("watch", "--json", "--job=" + job), env, null, line -> {
                    if (stopping || !line.startsWith("{")) return;
                    // onModel may wait (a notification queued): a stop meanwhile must still reach the command
                    boolean interrupted = Thread.interrupted();
                    try {
                        onModel.accept(line);
                    } finally {
                        if (interrupted || stopping) Thread.currentThread().interrupt();
                    }
                });
            } finally {
                ended.complete(run);
            }
        }, "mpilens-mcp-watch-" + job);
        thread.setDaemon(true);
    }

    static Watch start(String job, Map<String, String> env, Consumer<String> onModel) {
        Watch w = new Watch(job, env, onModel);
        w.thread.start();
        return w;
    }

    /** Completes with the command's run when it ended (by itself or stopped). */
    CompletableFuture<CliRun> ended() {
        return ended;
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * No more models: the command is interrupted, which ends it at its pause between two rounds (or
     * cuts the round it is in: a read of a rank gives up, the rank goes on).
     */
    void stop() {
        if (stopping) return;
        stopping = true;
        thread.interrupt();
        // again every half second while it runs: a wait deep in a read may have taken the first interrupt
        Thread again = new Thread(() -> {
            for (int i = 0; i < 120 && thread.isAlive(); i++) {
                try {
                    thread.join(500);
                } catch (InterruptedException e) {
                    return;
                }
                thread.interrupt();
            }
        }, thread.getName() + "-stop");
        again.setDaemon(true);
        again.start();
    }

    /**
     * {@link #stop}, then waits up to {@code millis} for the command to end, also when this thread was
     * interrupted (a cancelled read): the interrupt is kept for the caller.
     */
    void stopAndWait(long millis) {
        stop();
        boolean interrupted = Thread.interrupted();
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
