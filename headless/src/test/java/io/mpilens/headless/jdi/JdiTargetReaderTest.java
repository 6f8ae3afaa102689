package io.mpilens.headless.jdi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import io.mpilens.headless.testing.FieldsTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JdiTargetReaderTest {
    private TargetJvm target;
    private JdiTargetReader reader;

    @BeforeEach
    void start() throws Exception {
        target = TargetJvm.launch(FieldsTarget.class);
        reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()), Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        if (reader != null) reader.close();
        if (target != null) target.close();
    }

    private TargetClass fieldsTarget() {
        List<TargetClass> classes = reader.classesNamed(FieldsTarget.class.getName());
        assertEquals(1, classes.size());
        return classes.get(0);
    }

    private TargetObject holder() {
        return (TargetObject) reader.staticField(fieldsTarget(), "HOLDER");
    }

    private TargetObject array(String field) {
        return (TargetObject) reader.fields(holder(), List.of(field)).get(field);
    }

    @Test
    void readsStaticFieldsOfEveryShape() {
        TargetClass c = fieldsTarget();
        assertEquals(42, reader.staticField(c, "answer"));
        assertEquals(1L << 40, reader.staticField(c, "large"));
        assertEquals("h\u00e9llo \"mpi\"", reader.string((TargetObject) reader.staticField(c, "greeting")));
        assertNull(reader.staticField(c, "nothing"));
        assertNull(reader.staticField(c, "noSuchField"));
        assertEquals(FieldsTarget.class.getName() + "$Holder", holder().typeName());
    }

    @Test
    void readsSeveralInstanceFieldsAtOnceAndAbsentOnesAsNull() {
        Map<String, Object> f = reader.fields(holder(),
                List.of("count", "total", "small", "flag", "letter", "label", "ints", "missing"));
        assertEquals(7, f.get("count"));
        assertEquals(-3L, f.get("total"));
        assertEquals((byte) 5, f.get("small"));
        assertEquals(true, f.get("flag"));
        assertEquals('x', f.get("letter"));
        assertEquals("holder", reader.string((TargetObject) f.get("label")));
        assertEquals("[I", ((TargetObject) f.get("ints")).typeName());
        assertTrue(f.containsKey("missing"));
        assertNull(f.get("missing"));
    }

    @Test
    void readsPrimitiveArraysAcrossChunkBoundaries() {
        TargetObject longs = array("longs");
        assertEquals(300_000, reader.arrayLength(longs));
        long[] all = reader.longs(longs, 0, 300_000); // more than one chunk
        for (int i = 0; i < all.length; i++) assertEquals(i * 3L - 1, all[i], "longs[" + i + "]");
        assertArrayEquals(new long[] {262_142 * 3L - 1, 262_143 * 3L - 1, 262_144 * 3L - 1},
                reader.longs(longs, 262_142, 3));
        int[] ints = reader.ints(array("ints"), 10, 5);
        assertArrayEquals(new int[] {20, 22, 24, 26, 28}, ints);
        assertArrayEquals(new byte[] {(byte) 254, (byte) 255, 0}, reader.bytes(array("bytes"), 254, 3));
        assertEquals(0, reader.ints(array("ints"), 0, 0).length);
    }

    /** The overlapped reads of many objects' fields give what reading them one by one gives, in order. */
    @Test
    void readsTheFieldsOfManyObjectsOverlappedInTheirOrder() {
        TargetObject[] all = reader.objects(array("objects"), 0, 3000);
        java.util.List<TargetObject> objects = new java.util.ArrayList<>();
        for (TargetObject o : all) if (o != null) objects.add(o);
        java.util.List<String> names = java.util.List.of("coder", "hash", "noSuchField");

        java.util.List<java.util.Map<String, Object>> overlapped = reader.fieldsOfEach(objects, names);

        assertEquals(objects.size(), overlapped.size());
        for (int i = 0; i < objects.size(); i++) {
            assertEquals(reader.fields(objects.get(i), names), overlapped.get(i), "object " + i);
            assertNull(overlapped.get(i).get("noSuchField"));
        }
        assertTrue(objects.size() >= JdiTargetReader.PIPELINE * 16, "enough objects for overlapped reads");
    }

    @Test
    void aFailingReadAmongOverlappedOnesIsThrownToTheCaller() {
        java.util.List<TargetObject> objects = new java.util.ArrayList<>(java.util.Arrays.asList(reader.objects(array("objects"), 1, 999)));
        objects.set(500, () -> "java.lang.String"); // not this reader's: the read of it fails
        assertThrows(RuntimeException.class, () -> reader.fieldsOfEach(objects, java.util.List.of("hash")));
    }

    /** One JDWP request for more than 65,536 references kills the target; the reader splits it. */
    @Test
    void readsAnObjectArrayOf200000ElementsAndTheTargetSurvives() {
        TargetObject objects = array("objects");
        assertEquals(FieldsTarget.BIG_OBJECTS, reader.arrayLength(objects));
        TargetObject[] values = (reader.objects((TargetObject) reader.staticField(fieldsTarget(), "VALUES"), 0, 7));

        TargetObject[] all = reader.objects(objects, 0, FieldsTarget.BIG_OBJECTS);

        assertEquals(FieldsTarget.BIG_OBJECTS, all.length);
        for (int i = 0; i < all.length; i++) {
            if (i % 1000 == 0) assertNull(all[i], "objects[" + i + "]");
            else assertEquals(values[i % 7], all[i], "objects[" + i + "]");
        }
        assertEquals("v3", reader.string(all[199_999 - 199_999 % 7 + 3 - 7]));
        TargetObject[] slice = reader.objects(objects, 65_530, 70_000); // unaligned, crosses a chunk
        for (int i = 0; i < slice.length; i++) assertEquals(all[65_530 + i], slice[i]);

        assertTrue(target.isAlive(), "the target JVM died");
        long before = (Long) reader.staticField(fieldsTarget(), "ticks");
        assertEventually(() -> (Long) reader.staticField(fieldsTarget(), "ticks") > before);
    }

    @Test
    void readsWhileTheTargetIsSuspendedBecauseNothingIsInvoked() throws Exception {
        reader.virtualMachine().suspend();
        try {
            long ticks = (Long) reader.staticField(fieldsTarget(), "ticks");
            Thread.sleep(100);
            assertEquals(ticks, reader.staticField(fieldsTarget(), "ticks"), "the target kept running");
            assertEquals(7, reader.fields(holder(), List.of("count")).get("count"));
            assertEquals("holder", reader.string((TargetObject) reader.fields(holder(), List.of("label")).get("label")));
            assertEquals(100_000, reader.ints(array("ints"), 0, 100_000).length);
            assertEquals("v1", reader.string(reader.objects(array("objects"), 1, 1)[0]));
        } finally {
            reader.virtualMachine().resume();
        }
    }

    @Test
    void whileSuspendedResumesAfterwards() {
        long during = reader.whileSuspended(() -> (Long) reader.staticField(fieldsTarget(), "ticks"));
        assertEventually(() -> (Long) reader.staticField(fieldsTarget(), "ticks") > during);
    }

    @Test
    void aTargetThatDiesMidSessionIsAReadErrorNamingTheAddress() throws Exception {
        TargetClass c = fieldsTarget();
        target.kill();
        TargetReadException e = assertThrows(TargetReadException.class, () -> reader.staticField(c, "answer"));
        assertTrue(e.getMessage().startsWith(target.address() + " disconnected"), e.getMessage());
    }

    @Test
    void describesItselfByAddressAndCloseLeavesTheTargetRunning() throws Exception {
        String address = target.address();
        assertEquals(address, reader.describe());
        reader.close();
        reader.close();
        String next = target.awaitRelisten(address); // with address=...:0, JDWP re-listens on a new port
        assertTrue(target.isAlive());
        try (JdiTargetReader again = JdiTargetReader.attach(next)) {
            assertEquals(42, again.staticField(again.classesNamed(FieldsTarget.class.getName()).get(0), "answer"));
        }
    }

    @Test
    void objectArrayChunkIsTheSpiLimit() {
        assertEquals(TargetReader.MAX_OBJECT_ARRAY_CHUNK, JdiTargetReader.OBJECT_CHUNK);
    }

    private static void assertEventually(java.util.function.BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("condition not met within 5 s");
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
