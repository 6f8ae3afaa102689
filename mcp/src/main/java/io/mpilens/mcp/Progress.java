package io.mpilens.mcp;

import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * MCP progress notifications for one call, when the client asked for them (a progress token): the
 * command line at the start, then each line the command prints on stderr (a dump's percentage, a
 * rank that did not answer) and once a second while it runs. Progress counts up; no total is known.
 */
final class Progress implements AutoCloseable {
    private final McpSyncServerExchange exchange;
    private final Object token;
    private final String tool;
    private final ScheduledExecutorService ticks;
    private final long start = System.nanoTime();
    private double progress;
    private String last;

    private Progress(McpSyncServerExchange exchange, Object token, String tool) {
        this.exchange = exchange;
        this.token = token;
        this.tool = tool;
        if (token == null) {
            ticks = null;
            return;
        }
        ticks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mpilens-mcp-progress");
            t.setDaemon(true);
            return t;
        });
        ticks.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    static Progress of(McpSyncServerExchange exchange, McpSchema.CallToolRequest request, String tool) {
        Object token = request.meta() == null ? null : request.meta().get("progressToken");
        return new Progress(exchange, token, tool);
    }

    void said(String line) {
        last = line;
        send(line);
    }

    private void tick() {
        send(tool + ": " + Math.round((System.nanoTime() - start) / 1e9) + " s" + (last == null ? "" : " (" + last + ")"));
    }

    private synchronized void send(String message) {
        if (token == null) return;
        // the SDK blocks until the notification is queued, and a blocked wait would take a cancellation's
        // interrupt meant for the command whose stderr line this is: kept aside and put back
        boolean interrupted = Thread.interrupted();
        try {
            progress += 1;
            exchange.progressNotification(McpSchema.ProgressNotification.builder(token, progress).message(message).build());
        } catch (RuntimeException e) {
            // the client went away or refused it: progress is a courtesy, the answer still comes
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (ticks != null) ticks.shutdownNow();
    }
}
