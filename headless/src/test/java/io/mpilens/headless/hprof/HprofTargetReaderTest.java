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
import java.util.ArrayList;
import java.util.Arrays;
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

    /**
     * A dump cut exactly between two records reads cleanly to its end; it is still truncated, and
     * said to be, not read as a dump without a registry or a binding (what it lacks may be in the
     * part cut off). Cuts after the 100th record (among the strings) and before HotSpot's end record.
     */
    @Test
    void aDumpCutBetweenTwoRecordsIsTruncated() throws Exception {
        byte[] all = Files.readAllBytes(plain);
        List<Integer> boundaries = new ArrayList<>();
        int at = new String(all, 0, 64, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\0') + 1 + 4 + 8;
        int lastTag = -1;
        while (at < all.length) {
            boundaries.add(at);
            lastTag = all[at] & 0xff;
            long length = java.nio.ByteBuffer.wrap(all, at + 5, 4).getInt() & 0xffffffffL;
            at += 9 + (int) length;
        }
        assertEquals(all.length, at, "the whole dump is records");
        assertEquals(HprofFormat.HEAP_DUMP_END, lastTag, "HotSpot ends a dump with its end record");
        int inStrings = boundaries.get(100);
        assertEquals(HprofFormat.UTF8, all[inStrings] & 0xff);
        for (int cut : List.of(inStrings, boundaries.get(boundaries.size() - 1))) {
            Path cutDump = Files.write(dir.resolve("cut-between-records.hprof"), Arrays.copyOf(all, cut));
            try {
                TargetReadException e = assertThrows(TargetReadException.class, () -> {
                    try (HprofTargetReader r = HprofTargetReader.open(cutDump)) {
                        r.classesNamed("java.lang.String");
                    }
                });
                assertTrue(e.getMessage().startsWith("cut-between-records.hprof is truncated: it ends at offset " + cut
                        + " between two records"), e.getMessage());
            } finally {
                Files.delete(cutDump);
            }
        }
    }
}
