package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Info pairs kept current through set/delete/dup, what a window or file was created with,
 * files' names and modes, cached attributes: from the registry's calls through its side
 * records to what a debugger decodes. Our own seam with stand-in wrappers; the Open MPI tour
 * checks the same against the binding's own answers.
 */
class InfoAndAttributesTest {
    static final class Wrapper {
    }

    private HandleRegistry registry;

    @BeforeEach
    void fresh() {
        registry = new HandleRegistry(4, 16);
        registry.configure("test", "openmpi", false);
        RegistryLifecycleTest.Root.INSTANCE = registry;
        registry.processInitialized(registry.process(getClass().getClassLoader()), 0, 1);
    }

    private long add(Object w, HandleKind kind, String call, java.util.function.Consumer<RowSpec> fill) {
        RowSpec s = new RowSpec(kind);
        s.proc = 0;
        s.call = call;
        s.bindingClass = Wrapper.class.getName();
        fill.accept(s);
        return registry.add(w, s);
    }

    private ProcessSnapshot snapshot() {
        return new RegistryDecoder(new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS,
                RegistryLifecycleTest.Root.class))).decode().get(0);
    }

    private static HandleInfo handle(ProcessSnapshot p, long id) {
        return p.handle(id).orElseThrow();
    }

    @Test
    void pairsFollowSetAndDeleteAndADupStartsWithThem() {
        Wrapper info = new Wrapper();
        long infoId = add(info, HandleKind.INFO, "new Info", s -> { });
        assertFalse(handle(snapshot(), infoId).hasInfoPairs(), "nothing set yet: nothing recorded");
        registry.infoChanged(info, "access_style", "write_once", true);
        registry.infoChanged(info, "mpilens", "tour", true);
        registry.infoChanged(info, "access_style", "read_mostly", true);
        Map<String, String> want = new LinkedHashMap<>();
        want.put("access_style", "read_mostly");
        want.put("mpilens", "tour");
        assertEquals(want, handle(snapshot(), infoId).infoPairs());
        registry.infoChanged(info, "mpilens", null, false);
        HandleInfo after = handle(snapshot(), infoId);
        assertEquals(Map.of("access_style", "read_mostly"), after.infoPairs());
        assertEquals(1, after.infoPairCount());

        Wrapper copy = new Wrapper();
        long copyId = add(copy, HandleKind.INFO, "dup", s -> s.infoFrom = info);
        registry.infoChanged(info, "later", "only in the original", true);
        assertEquals(Map.of("access_style", "read_mostly"), handle(snapshot(), copyId).infoPairs());
        assertEquals(2, handle(snapshot(), infoId).infoPairCount());
    }

    @Test
    void aFileKeepsItsNameModeAndThePairsOfItsInfoAsTheyWereThen() {
        Wrapper info = new Wrapper();
        long infoId = add(info, HandleKind.INFO, "new Info", s -> { });
        registry.infoChanged(info, "striping_factor", "4", true);
        Wrapper comm = new Wrapper();
        long commId = add(comm, HandleKind.COMMUNICATOR, "dup", s -> { });
        Wrapper file = new Wrapper();
        long fileId = add(file, HandleKind.FILE, "new File", s -> {
            s.ref0 = comm;
            s.fileName = "/tmp/out.dat";
            s.fileMode = 9;
            s.fileModeFlags = "MODE_CREATE|MODE_RDWR";
            s.createdWithInfo = info;
        });
        registry.infoChanged(info, "striping_factor", "8", true);
        ProcessSnapshot p = snapshot();
        HandleInfo f = handle(p, fileId);
        assertEquals("/tmp/out.dat", f.fileName());
        assertEquals(9, f.accessMode());
        assertEquals("MODE_CREATE|MODE_RDWR", f.accessModeFlags());
        assertEquals(infoId, f.createdWithInfo());
        assertEquals(Map.of("striping_factor", "4"), f.infoPairs(), "the pairs as they were when the file was opened");
        assertEquals(Map.of("striping_factor", "8"), handle(p, infoId).infoPairs());
        assertArrayEquals(new long[] {fileId}, handle(p, infoId).usedBy());
        assertArrayEquals(new long[] {fileId}, handle(p, commId).files());
        assertArrayEquals(new long[0], handle(p, commId).windows());
    }

    @Test
    void attributesAreCachedAndDeletedAndVanishWithTheirHandle() {
        Wrapper comm = new Wrapper();
        long commId = add(comm, HandleKind.COMMUNICATOR, "dup", s -> { });
        registry.attributeChanged(comm, 7, "\"tour\"");
        registry.attributeChanged(comm, 3, "42");
        assertEquals(Map.of(3, "42", 7, "\"tour\""), handle(snapshot(), commId).attributes());
        registry.attributeChanged(comm, 7, null);
        assertEquals(Map.of(3, "42"), handle(snapshot(), commId).attributes());
        registry.attributeChanged(comm, 3, null);
        assertTrue(handle(snapshot(), commId).attributes().isEmpty());
        registry.attributeChanged(new Wrapper(), 1, "x"); // not registered: counted, not thrown
        assertEquals(1, snapshot().agentHealth().untrackedEvents());
    }

    @Test
    void stringsTheApplicationChoosesAreCutAndBounded() {
        Wrapper info = new Wrapper();
        long infoId = add(info, HandleKind.INFO, "new Info", s -> { });
        registry.infoChanged(info, "long", "x".repeat(1000), true);
        String kept = handle(snapshot(), infoId).infoPairs().get("long");
        assertEquals(RegistryLayout.INFO_MAX_CHARS, kept.length());
        assertTrue(kept.endsWith("\u2026"));
        for (int i = 0; i < 100; i++) registry.infoChanged(info, "key" + i, "v", true);
        HandleInfo h = handle(snapshot(), infoId);
        assertEquals(101, h.infoPairCount());
        assertEquals(RegistryLayout.INFO_MAX_PAIRS, h.infoPairs().size());
        // an application that sets ever new values: the string table stops growing, the mark says so
        for (int i = 0; i < InternedStrings.BOUNDED_STRING_LIMIT + 10; i++) registry.infoChanged(info, "long", "v" + i, true);
        assertEquals(InternedStrings.STRING_LIMIT_MARK, handle(snapshot(), infoId).infoPairs().get("long"));
    }
}
