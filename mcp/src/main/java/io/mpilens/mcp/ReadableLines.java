package io.mpilens.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

/**
 * The client's stdin as the SDK's stdio transport reads it, without the lines it could not read:
 * the transport stops reading at the first line that is not a JSON-RPC message (SDK 2.1), which
 * would leave the client without a server. Such a line is named on stderr and dropped; the next
 * one is served. Each message read is shown to {@code seen} first, which returns the line to serve
 * (possibly rewritten) or null to serve none ({@link Traffic#incoming}). Runs {@code ended} when the input ends.
 */
final class ReadableLines extends InputStream {
    private final BufferedReader in;
    private final McpJsonMapper json;
    private final PrintStream log;
    private final Runnable ended;
    private final BiFunction<String, McpSchema.JSONRPCMessage, String> seen;
    private byte[] line = new byte[0];
    private int at;
    private boolean eof;

    ReadableLines(InputStream in, McpJsonMapper json, PrintStream log, Runnable ended,
                  BiFunction<String, McpSchema.JSONRPCMessage, String> seen) {
        this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        this.json = json;
        this.log = log;
        this.ended = ended;
        this.seen = seen;
    }

    @Override
    public synchronized int read() throws IOException {
        if (!fill()) return -1;
        return line[at++] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        if (!fill()) return -1;
        int n = Math.min(len, line.length - at);
        System.arraycopy(line, at, b, off, n);
        at += n;
        return n;
    }

    private boolean fill() throws IOException {
        while (at == line.length) {
            if (eof) return false;
            String next = in.readLine();
            if (next == null) {
                eof = true;
                ended.run();
                return false;
            }
            if (next.isBlank()) continue;
            McpSchema.JSONRPCMessage message;
            try {
                message = McpSchema.deserializeJsonRpcMessage(json, next);
            } catch (IOException | RuntimeException e) {
                log.println("mpilens mcp: dropped a line that is not a JSON-RPC message (" + e.getMessage() + "): "
                        + (next.length() > 200 ? next.substring(0, 200) + "..." : next));
                continue;
            }
            String served;
            try {
                served = seen.apply(next, message);
            } catch (RuntimeException e) { // ours: the SDK still gets the line as the client sent it
                log.println("mpilens mcp: " + e + " while looking at a message (please report this to the mpilens developers)");
                served = next;
            }
            if (served == null) continue;
            line = (served + "\n").getBytes(StandardCharsets.UTF_8);
            at = 0;
        }
        return true;
    }
}
