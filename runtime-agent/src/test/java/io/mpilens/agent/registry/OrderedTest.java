package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Ordered} on both of its paths: VarHandles (this JVM: nothing exports
 * {@code jdk.internal.misc} to the tests) and {@code jdk.internal.misc.Unsafe} (a child JVM
 * given the export on its command line, as the agent's entry point gives it at start-up). The
 * same checks run on each: values land in the element named, nowhere else, and an index outside
 * the array throws (IndexOutOfBoundsException, as an array store's) instead of writing beside it.
 */
class OrderedTest {

    @Test
    void varHandlePathWhereTheJdkDoesNotExportItsUnsafe() {
        assertFalse(Ordered.UNSAFE, "this JVM does not export jdk.internal.misc to the tests");
        assertEquals("ok", exercise());
    }

    @Test
    void unsafePathWhereTheJdkExportsIt() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(),
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Child.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM finished");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), out);
        assertEquals("UNSAFE=true ok", out);
    }

    /** The child JVM's entry point: which path, then the checks. */
    public static final class Child {
        public static void main(String[] args) {
            System.out.println("UNSAFE=" + Ordered.UNSAFE + " " + exercise());
        }
    }

    /** "ok", or what went wrong. */
    static String exercise() {
        long[] longs = new long[5];
        int[] ints = new int[5];
        Ordered.setRelease(longs, 1, 11L);
        Ordered.setOpaque(longs, 2, 12L);
        Ordered.setVolatile(longs, 3, 13L);
        if (longs[0] != 0 || longs[1] != 11 || longs[2] != 12 || longs[3] != 13 || longs[4] != 0) return "long stores " + java.util.Arrays.toString(longs);
        longs[4] = -4;
        if (Ordered.getAcquire(longs, 4) != -4 || Ordered.getVolatile(longs, 1) != 11) return "long loads";
        Ordered.setRelease(ints, 1, 21);
        Ordered.setOpaque(ints, 2, 22);
        Ordered.setVolatile(ints, 3, 23);
        if (ints[0] != 0 || ints[1] != 21 || ints[2] != 22 || ints[3] != 23 || ints[4] != 0) return "int stores " + java.util.Arrays.toString(ints);
        if (Ordered.getOpaque(ints, 3) != 23) return "int load";
        Ordered.storeStoreFence();
        Ordered.loadLoadFence();
        if (!Ordered.compareAndSet(ints, 4, 0, 1) || Ordered.compareAndSet(ints, 4, 0, 2) || ints[4] != 1) return "compare-and-set";
        for (int bad : new int[] {-1, 5, Integer.MAX_VALUE}) {
            try {
                Ordered.setRelease(longs, bad, 99L);
                return "long index " + bad + " accepted";
            } catch (IndexOutOfBoundsException expected) {
                // as an array store
            }
            try {
                Ordered.compareAndSet(ints, bad, 0, 99);
                return "int index " + bad + " accepted";
            } catch (IndexOutOfBoundsException expected) {
                // as an array store
            }
        }
        for (long v : longs) if (v == 99) return "a rejected store landed";
        for (int v : ints) if (v == 99) return "a rejected store landed";
        return "ok";
    }
}
