package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.testing.FieldsTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader against real dumps of a JVM with known statics, fields and arrays (as JdiTargetReaderTest live). */
class HprofTargetReaderTest {
    @TempDir
    static Path dir;
    static Path plain;
    static Path gzip;

    @BeforeAll
    static void dumpFieldsTarget() throws Exception {
        try (TargetJvm target = TargetJvm.launch(FieldsTarget.class)) {
            plain = HeapDumper.dump(target.pid(), dir.resolve("fields.hprof"), false);
            gzip = HeapDumper.dump(target.pid(), dir.resolve("fields.hprof.gz"), true);
        }
    }

    @AfterAll
    static void nothingWasWrittenBesideTheDumps() throws Exception {
        try (var files = Files.list(dir)) {
            assertEquals(List.of("fields.hprof", "fields.hprof.gz"), files.map(f -> f.getFileName().toString()).sorted().toList());
        }
    }

    private static TargetObject holder(HprofTargetReader reader) {
        return (TargetObject) reader.staticField(fieldsTarget(reader), "HOLDER");
    }

    private static TargetClass fieldsTarget(HprofTargetReader reader) {
        List<TargetClass> classes = reader.classesNamed(FieldsTarget.class.getName());
        assertEquals(1, classes.size());
        return classes.get(0);
    }

    private static TargetObject array(HprofTargetReader reader, String field) {
        return (TargetObject) reader.fields(holder(reader), List.of(field)).get(field);
    }

    @Test
    void readsStaticsFieldsArraysAndStringsOfAnUncompressedDump() {
        try (HprofTargetReader reader = HprofTargetReader.open(plain)) {
            assertEquals(8, reader.identifierSize());
            readsEverything(reader);
        }
    }

    @Test
    void readsAGzipCompressedDumpTheSame() {
        try (HprofTargetReader reader = HprofTargetReader.open(gzip)) {
            assertTrue(reader.compressed());
            readsEverything(reader);
        }
    }

    private static void readsEverything(HprofTargetReader reader) {
        TargetClass c = fieldsTarget(reader);
        assertEquals(42, reader.staticField(c, "answer"));
        assertEquals(1L << 40, reader.staticField(c, "large"));
        assertEquals("h\u00e9llo \"mpi\"", reader.string((TargetObject) reader.staticField(c, "greeting")));
        assertNull(reader.staticField(c, "nothing"));
        assertNull(reader.staticField(c, "noSuchField"));
        assertEquals(FieldsTarget.class.getName() + "$Holder", holder(reader).typeName());

        Map<String, Object> f = reader.fields(holder(reader),
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

        TargetObject longs = array(reader, "longs");
        assertEquals(300_000, reader.arrayLength(longs));
        long[] all = reader.longs(longs, 0, 300_000);
        for (int i = 0; i < all.length; i++) assertEquals(i * 3L - 1, all[i], "longs[" + i + "]");
        assertArrayEquals(new int[] {20, 22, 24, 26, 28}, reader.ints(array(reader, "ints"), 10, 5));
        assertArrayEquals(new byte[] {(byte) 254, (byte) 255, 0}, reader.bytes(array(reader, "bytes"), 254, 3));

        TargetObject objects = array(reader, "objects");
        assertEquals("[Ljava.lang.Object;", objects.typeName());
        TargetObject[] values = reader.objects((TargetObject) reader.staticField(c, "VALUES"), 0, 7);
        TargetObject[] elements = reader.objects(objects, 0, FieldsTarget.BIG_OBJECTS);
        for (int i = 0; i < elements.length; i++) {
            if (i % 1000 == 0) assertNull(elements[i], "objects[" + i + "]");
            else assertEquals(values[i % 7], elements[i], "objects[" + i + "]");
        }
        assertEquals("v3", reader.string(elements[3]));
    }

    @Test
    void aSliceOutsideTheArrayIsAReadErrorNamingTheBounds() {
        try (HprofTargetReader reader = HprofTargetReader.open(plain)) {
            TargetReadException e = assertThrows(TargetReadException.class,
                    () -> reader.ints(array(reader, "ints"), 99_999, 2));
            assertTrue(e.getMessage().contains("[99999, 100001) of an array of length 100000"), e.getMessage());
            e = assertThrows(TargetReadException.class, () -> reader.longs(array(reader, "ints"), 0, 1));
            assertTrue(e.getMessage().contains("expected a [J array, found [I"), e.getMessage());
        }
    }

    @Test
    void aFileThatIsNoHeapDumpSaysSo() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello, this is not a heap dump\n");
        try {
            TargetReadException e = assertThrows(TargetReadException.class, () -> HprofTargetReader.open(text));
            assertTrue(e.getMessage().startsWith("notes.txt is not an HPROF heap dump"), e.getMessage());
        } finally {
            Files.delete(text);
        }
    }
}
