package io.mpilens.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A client's {@code notifications/cancelled} stops the request it names. The SDK (2.1) has no handler
 * for it and does not tell a handler which request it serves, so the server does it here: each
 * cancellable request ({@code tools/call}, {@code resources/read}) is tagged on its way in with its
 * JSON-RPC id under {@value #META_KEY} in {@code _meta}; its handler {@link #begin}s a {@link Call}
 * on its thread; a cancellation interrupts that thread (the mpilens command in it stops at its next
 * wait: a read of a rank, the pause between two looks), and the answer the handler still returns is
 * not sent ({@link #unanswered}), as the protocol asks.
 */
final class Cancellation {
    static final String META_KEY = "io.mpilens/request";

    private final PrintStream log;
    /** Tagged requests not answered yet, by {@link #key}. */
    private final Map<String, Call> inFlight = new ConcurrentHashMap<>();
    /** Cancelled requests whose answer is not to be sent. */
    private final Set<String> unanswered = ConcurrentHashMap.newKeySet();

    Cancellation(PrintStream log) {
        this.log = log;
    }

    /** A JSON-RPC id as one string: 7 and "7" are different ids. */
    static String key(Object id) {
        if (id instanceof String s) return "\"" + s + "\"";
        if (id instanceof Number n) {
            try {
                return new BigDecimal(n.toString()).stripTrailingZeros().toPlainString();
            } catch (NumberFormatException e) {
                return n.toString();
            }
        }
        return String.valueOf(id);
    }

    /**
     * An incoming request that can be cancelled: its params with the tag added (null when they are not
     * an object: the SDK answers that request with an error of its own).
     */
    Map<String, Object> tag(McpSchema.JSONRPCRequest request) {
        if (!(request.params() instanceof Map<?, ?> params) || request.id() == null) return null;
        String key = key(request.id());
        Map<String, Object> out = new LinkedHashMap<>();
        params.forEach((k, v) -> out.put(String.valueOf(k), v));
        Map<String, Object> meta = new LinkedHashMap<>();
        if (out.get("_meta") instanceof Map<?, ?> given) given.forEach((k, v) -> meta.put(String.valueOf(k), v));
        meta.put(META_KEY, key);
        out.put("_meta", meta);
        String what = request.method() + (params.get("name") instanceof String n ? " " + n
                : params.get("uri") instanceof String u ? " " + u : "");
        inFlight.put(key, new Call(key, what));
        return out;
    }

    /** {@code notifications/cancelled}: stops the request it names, if it is still running. */
    void cancelled(Object params) {
        if (!(params instanceof Map<?, ?> p) || p.get("requestId") == null) {
            log.println("mpilens mcp: a notifications/cancelled without a requestId: ignored");
            return;
        }
        Call c = inFlight.get(key(p.get("requestId")));
        if (c == null) return; // answered already, or not a request that can be cancelled: nothing to stop
        c.cancel(p.get("reason") instanceof String r && !r.isBlank() ? r : null);
    }

    /**
     * The handler of a tagged request starts on this thread; close the call when it is done. A request
     * without the tag (none of ours) gets a call nobody can cancel.
     */
    Call begin(Map<String, Object> meta) {
        Object key = meta == null ? null : meta.get(META_KEY);
        Call c = key == null ? null : inFlight.get(String.valueOf(key));
        if (c == null) return new Call(null, null);
        c.started(Thread.currentThread());
        return c;
    }

    /** An outgoing response to request {@code id}: whether to drop it (the request was cancelled). */
    boolean answered(Object id) {
        String key = key(id);
        inFlight.remove(key); // also a request whose handler never ran (an unknown tool)
        return unanswered.remove(key);
    }

    /** Whether an outgoing response needs {@link #answered}: only while some request is tagged. */
    boolean watching() {
        return !inFlight.isEmpty() || !unanswered.isEmpty();
    }

    /** One cancellable request: the thread its handler runs on, once it started. */
    final class Call implements AutoCloseable {
        private final String key;
        private final String what;
        private Thread thread;
        private boolean done;
        private boolean cancelled;
        private long cancelledAt;

        private Call(String key, String what) {
            this.key = key;
            this.what = what;
        }

        private synchronized void started(Thread t) {
            thread = t;
            if (cancelled) t.interrupt(); // cancelled before its handler ran: it stops at its first wait
        }

        private synchronized void cancel(String reason) {
            if (done || cancelled) return;
            cancelled = true;
            cancelledAt = System.nanoTime();
            unanswered.add(key);
            log.println("mpilens mcp: request " + key + " (" + what + ") cancelled by the client"
                    + (reason == null ? "" : " (" + reason + ")") + ": stopping it");
            if (thread != null) thread.interrupt();
        }

        synchronized boolean cancelled() {
            return cancelled;
        }

        @Override
        public void close() {
            if (key == null) return;
            boolean wasCancelled;
            synchronized (this) {
                done = true;
                wasCancelled = cancelled;
            }
            Thread.interrupted(); // a cancellation's interrupt must not reach the SDK's next use of this thread
            inFlight.remove(key, this);
            if (wasCancelled) {
                log.printf("mpilens mcp: request %s (%s) stopped %.1f s after its cancellation; its answer is not sent%n",
                        key, what, (System.nanoTime() - cancelledAt) / 1e9);
            }
        }
    }
}
