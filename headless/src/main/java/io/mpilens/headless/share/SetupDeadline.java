package io.mpilens.headless.share;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A time limit on a socket's set-up (connect, JDWP handshake) that closes the socket when it
 * passes, instead of a connect or read timeout. A JDK socket that once had a timed connect or
 * read stays non-blocking for good, and then each blocking read costs a failed read, a poll and
 * the read again; the share's sockets stay blocking, so a relayed packet costs one read.
 */
final class SetupDeadline implements AutoCloseable {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mpilens-share-deadlines");
        t.setDaemon(true);
        return t;
    });

    private final Socket socket;
    private final ScheduledFuture<?> task;
    private boolean done;
    private boolean fired;

    SetupDeadline(Socket socket, long millis) {
        this.socket = socket;
        this.task = TIMER.schedule(this::fire, Math.max(1, millis), TimeUnit.MILLISECONDS);
    }

    private void fire() {
        synchronized (this) {
            if (done) return;
            fired = true;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // it was closing anyway
        }
    }

    /** Whether the limit passed (and closed the socket) before {@link #close()}. */
    synchronized boolean fired() {
        return fired;
    }

    /** The set-up is over: the socket is left alone from now on. */
    @Override
    public void close() {
        synchronized (this) {
            done = true;
        }
        task.cancel(false);
    }
}
