package io.mpilens.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What the server does with the messages themselves, where the SDK (2.1) gives no hook: the
 * client's lines on their way in ({@link #incoming}: cancellations, requests tagged so they can be
 * cancelled, subscriptions and resource lists noted) and the server's lines on their way out
 * ({@link #outgoing}: the answer to a cancelled request dropped, a subscription taking effect).
 */
final class Traffic {
    private static final String CANCELLED = "notifications/cancelled";

    private final McpJsonMapper json;
    private final PrintStream log;
    private final Cancellation cancellation;
    private final JobResources resources;

    Traffic(McpJsonMapper json, PrintStream log, Cancellation cancellation, JobResources resources) {
        this.json = json;
        this.log = log;
        this.cancellation = cancellation;
        this.resources = resources;
    }

    /** A client's message, before the SDK reads it: the line to give the SDK, or null for none. */
    String incoming(String line, McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCNotification n && CANCELLED.equals(n.method())) {
            cancellation.cancelled(n.params());
            return null; // the SDK has no handler for it and would only log that
        }
        if (!(message instanceof McpSchema.JSONRPCRequest r) || r.method() == null) return line;
        switch (r.method()) {
            case McpSchema.METHOD_TOOLS_CALL, McpSchema.METHOD_RESOURCES_READ -> {
                Map<String, Object> tagged = cancellation.tag(r);
                if (tagged == null) return line;
                try {
                    return json.writeValueAsString(new McpSchema.JSONRPCRequest(r.jsonrpc(), r.method(), r.id(), tagged));
                } catch (IOException e) {
                    return line;
                }
            }
            case McpSchema.METHOD_RESOURCES_LIST -> resources.refreshList(); // the SDK lists what is registered
            case McpSchema.METHOD_RESOURCES_SUBSCRIBE -> resources.subscribing(Cancellation.key(r.id()), uri(r), true);
            case McpSchema.METHOD_RESOURCES_UNSUBSCRIBE -> resources.subscribing(Cancellation.key(r.id()), uri(r), false);
            default -> { }
        }
        return line;
    }

    private static String uri(McpSchema.JSONRPCRequest r) {
        return r.params() instanceof Map<?, ?> p && p.get("uri") instanceof String u ? u : null;
    }

    /** The stream the SDK writes its messages to, one line each. */
    OutputStream outgoing(OutputStream out) {
        return new Outgoing(out);
    }

    private final class Outgoing extends OutputStream {
        private final OutputStream out;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        Outgoing(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            line.write(b);
            if (b == '\n') sendLine();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            int end = off + len;
            for (int i = off; i < end; i++) {
                if (b[i] != '\n') continue;
                line.write(b, off, i + 1 - off);
                sendLine();
                off = i + 1;
            }
            line.write(b, off, end - off);
        }

        @Override
        public synchronized void flush() throws IOException {
            out.flush(); // a line is sent whole, when it ends
        }

        @Override
        public synchronized void close() throws IOException {
            if (line.size() > 0) out.write(line.toByteArray());
            line.reset();
            out.close();
        }

        private void sendLine() throws IOException {
            byte[] bytes = line.toByteArray();
            line.reset();
            if (!answerToDrop(bytes)) {
                out.write(bytes);
                out.flush();
            }
        }

        /** Only responses matter here, and only while a request is tagged or a subscription pending. */
        private boolean answerToDrop(byte[] bytes) {
            if (!cancellation.watching() && !resources.awaitingAnswers()) return false;
            McpSchema.JSONRPCMessage m;
            try {
                m = McpSchema.deserializeJsonRpcMessage(json, new String(bytes, StandardCharsets.UTF_8).strip());
            } catch (IOException | RuntimeException e) {
                return false;
            }
            if (!(m instanceof McpSchema.JSONRPCResponse r) || r.id() == null) return false;
            String key = Cancellation.key(r.id());
            resources.answered(key, r.error() == null);
            if (!cancellation.answered(r.id())) return false;
            log.println("mpilens mcp: the answer to cancelled request " + key + " was not sent");
            return true;
        }
    }
}
