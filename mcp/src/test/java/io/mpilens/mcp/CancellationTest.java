package io.mpilens.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How a cancellation finds the call it names, stops its thread, and which answers are then dropped. */
class CancellationTest {
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();
    private final Cancellation cancellation = new Cancellation(new PrintStream(said, true, StandardCharsets.UTF_8));

    private static McpSchema.JSONRPCRequest toolsCall(Object id) {
        return new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, "tools/call", id,
                Map.of("name", "handles", "arguments", Map.of("job", "7"), "_meta", Map.of("progressToken", "p")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> meta(Map<String, Object> params) {
        return (Map<String, Object>) params.get("_meta");
    }

    @Test
    void aStringIdAndANumberIdAreDifferentRequests() {
        assertNotEquals(Cancellation.key("7"), Cancellation.key(7));
        assertEquals(Cancellation.key(7), Cancellation.key(7L));
        assertEquals(Cancellation.key(7), Cancellation.key(7.0));
    }

    @Test
    void theTagKeepsTheClientsMetaAndArguments() {
        Map<String, Object> tagged = cancellation.tag(toolsCall(3));
        assertEquals("handles", tagged.get("name"));
        assertEquals(Map.of("job", "7"), tagged.get("arguments"));
        assertEquals("p", meta(tagged).get("progressToken"));
        assertEquals(Cancellation.key(3), meta(tagged).get(Cancellation.META_KEY));
    }

    @Test
    void aCancellationInterruptsTheRunningCallAndItsAnswerIsDropped() throws Exception {
        Map<String, Object> tagged = cancellation.tag(toolsCall("a-1"));
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean cancelledSeen = new AtomicBoolean();
        Thread handler = new Thread(() -> {
            try (Cancellation.Call call = cancellation.begin(meta(tagged))) {
                running.countDown();
                try {
                    Thread.sleep(60_000); // the command's wait
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                cancelledSeen.set(call.cancelled());
            }
            // closed: the interrupt does not reach whatever this thread does next
            assertFalse(Thread.currentThread().isInterrupted());
        });
        handler.start();
        assertTrue(running.await(10, TimeUnit.SECONDS));
        cancellation.cancelled(Map.of("requestId", "a-1", "reason", "enough"));
        handler.join(10_000);
        assertFalse(handler.isAlive());
        assertTrue(interrupted.get() && cancelledSeen.get());
        assertTrue(cancellation.answered("a-1"), "the answer to a cancelled request is dropped");
        assertFalse(cancellation.answered("a-1"), "only once");
        assertTrue(said.toString(StandardCharsets.UTF_8).contains("cancelled by the client (enough)"), said.toString());
    }

    @Test
    void aCancellationBeforeTheHandlerStartsStopsItAtItsFirstWait() {
        Map<String, Object> tagged = cancellation.tag(toolsCall(5));
        cancellation.cancelled(Map.of("requestId", 5));
        try (Cancellation.Call call = cancellation.begin(meta(tagged))) {
            assertTrue(call.cancelled());
            assertTrue(Thread.currentThread().isInterrupted());
        }
        assertFalse(Thread.interrupted());
        assertTrue(cancellation.answered(5));
    }

    @Test
    void aCancellationOfAnAnsweredOrUnknownRequestChangesNothing() {
        cancellation.tag(toolsCall(8));
        assertFalse(cancellation.answered(8), "answered normally: sent");
        cancellation.cancelled(Map.of("requestId", 8));
        cancellation.cancelled(Map.of("requestId", 99));
        cancellation.cancelled(Map.of());
        assertFalse(cancellation.watching());
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
