package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 4-byte identifier path, on real heap contents: a HotSpot dump of a JVM holding the agent's
 * real registry, rewritten with 4-byte identifiers ({@link IdNarrowing}: what a 32-bit JVM
 * writes), decodes to the same snapshot as the original, field by field.
 */
class FourByteIdsTest {
    @TempDir
    static Path dir;
    static Path wide;
    static Path narrow;

    @BeforeAll
    static void dumps() throws Exception {
        try (TargetJvm t = TargetJvm.launch(RegistryTarget.class)) {
            wide = HeapDumper.dump(t.pid(), dir.resolve("rank1.hprof"), false);
        }
        narrow = IdNarrowing.narrow(wide, dir.resolve("rank1-ids4.hprof"));
    }

    @Test
    void theRewrittenDumpHas4ByteIdentifiersAndIsSmaller() throws Exception {
        try (HprofTargetReader r = HprofTargetReader.open(narrow); HprofTargetReader w = HprofTargetReader.open(wide)) {
            assertEquals(4, r.identifierSize());
            assertEquals(8, w.identifierSize());
        }
        assertTrue(Files.size(narrow) < Files.size(wide), Files.size(narrow) + " vs " + Files.size(wide));
    }

    @Test
    void theRegistryDecodesToTheSameSnapshotFieldByField() {
        List<ProcessSnapshot> original = HeapDumps.read(wide);
        List<ProcessSnapshot> rewritten = HeapDumps.read(narrow);
        assertEquals(1, original.size());
        assertTrue(original.get(0).handles().size() >= 4, original.toString());
        io.mpilens.headless.testing.SameSnapshots.assertSame(original, rewritten);
    }

    @Test
    void instancesOfAClassAreFoundTheSameWithEitherIdentifierSize() {
        assertEquals(threads(wide), threads(narrow));
    }

    /** The names of every java.lang.Thread in the dump (agentless mode's pass over instances). */
    private static List<String> threads(Path dump) {
        try (HprofTargetReader r = HprofTargetReader.open(dump)) {
            List<TargetClass> thread = r.classesNamed("java.lang.Thread");
            HeapInstances.Found found = r.instancesOf(thread, 10_000);
            List<String> names = new ArrayList<>();
            for (TargetObject t : found.of(thread.get(0))) {
                Map<String, Object> f = r.fields(t, List.of("name"));
                names.add(f.get("name") == null ? null : r.string((TargetObject) f.get("name")));
            }
            names.sort(null);
            assertTrue(names.contains("main"), names.toString());
            return names;
        }
    }
}
