package io.mpilens.agent.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The pack's rules on the agent's real classes (this module's and handle-api's, as the build packs
 * them): what goes in, the order it is defined in, and the build failing on a class the boot
 * loader could not resolve. That the agent then runs from the boot loader in a real rank JVM is
 * {@code BootDefinedAgentTest} (integration tests).
 */
class BootPackTest {
    /**
     * The classes the build packs, read as the build reads them ({@link BootPack#read}): this
     * module's compiled classes and handle-api's, not the tests'.
     */
    private static Map<String, byte[]> agentClasses() throws IOException {
        Map<String, byte[]> classes = new TreeMap<>();
        for (String element : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!element.isEmpty() && !element.contains("test-classes")) BootPack.read(new File(element), classes);
        }
        return classes;
    }

    @Test
    void everyPackedClassComesAfterItsPackedSupertypesAndTheLoaderSideStaysOut() throws IOException {
        Map<String, byte[]> classes = agentClasses();
        assertTrue(classes.containsKey("io/mpilens/api/model/HandleInfo"), "handle-api's classes are on the test class path");
        List<String> order = BootPack.order(classes);
        Set<String> before = new HashSet<>();
        for (String c : order) {
            for (String s : BootPack.ClassRefs.of(classes.get(c)).supertypes) {
                if (order.contains(s)) assertTrue(before.contains(s), c + " is defined before its supertype " + s);
            }
            before.add(c);
        }
        for (String needed : List.of("io/mpilens/agent/MpiLensAgent", "io/mpilens/agent/intercept/Interceptor",
                "io/mpilens/agent/registry/HandleRegistry", "io/mpilens/agent/registry/WrapperRequests",
                "io/mpilens/agent/Weaver", "io/mpilens/api/model/HandleKind")) {
            assertTrue(order.contains(needed), needed + " is packed: " + order);
        }
        for (String c : order) {
            assertFalse(c.startsWith("io/mpilens/agent/boot/") || c.startsWith("io/mpilens/agent/weave/"),
                    c + " must stay with the system class loader");
        }
        assertTrue(order.size() < classes.size(), "classes nothing reaches stay out (" + order.size() + " of " + classes.size() + ")");
        assertFalse(order.contains("io/mpilens/api/registry/RegistryDecoder"), "the reader's decoder is not the agent's");
        assertFalse(order.contains("io/mpilens/api/model/HandleInfo"), "nor is the readers' model of a handle (Interceptor.UNKNOWN)");
    }

    /**
     * The request path's JIT hints become java.base's annotations in the pack (HotSpot honours those
     * in boot classes only); the class still parses and defines, and nothing packed names the
     * agent's own hint types any more.
     */
    @Test
    void theJitHintsBecomeTheJdksAnnotationsInThePack() throws IOException {
        Map<String, byte[]> classes = agentClasses();
        byte[] ring = classes.get("io/mpilens/agent/registry/RequestRing");
        List<String> before = Arrays.asList(BootPack.Pool.of(ring).utf);
        assertTrue(before.contains("Lio/mpilens/agent/jit/Stable;") && before.contains("Lio/mpilens/agent/jit/DontInline;"),
                "RequestRing carries the hints: " + before);
        byte[] packed = BootPack.jitAnnotations(ring);
        List<String> after = Arrays.asList(BootPack.Pool.of(packed).utf);
        for (Map.Entry<String, String> e : BootPack.JIT_ANNOTATIONS.entrySet()) {
            assertFalse(after.contains(e.getKey()), e.getKey() + " is renamed");
            assertEquals(before.contains(e.getKey()), after.contains(e.getValue()), e.getValue());
        }
        assertEquals(before.size(), after.size(), "no constant added or lost");
        // the rest of the class file is intact: a class loader defines it (not resolved or run)
        Class<?> defined = new ClassLoader(null) {
            Class<?> define(byte[] b) {
                return defineClass("io.mpilens.agent.registry.RequestRing", b, 0, b.length);
            }
        }.define(packed);
        assertEquals("io.mpilens.agent.registry.RequestRing", defined.getName());
        byte[] plain = classes.get("io/mpilens/agent/registry/RequestFacts");
        assertSame(plain, BootPack.jitAnnotations(plain), "a class without hints is packed as it is");

        classes.replaceAll((name, b) -> BootPack.jitAnnotations(b));
        for (String c : BootPack.order(classes)) {
            assertFalse(c.startsWith("io/mpilens/agent/jit/"), c + " is not needed once renamed");
        }
    }

    @Test
    void aPackedClassThatNamesByteBuddyOrTheWeaverFailsTheBuild() throws IOException {
        Map<String, byte[]> classes = agentClasses();
        // the agent's entry point replaced by a class that names Byte Buddy's types, as a class
        // that used Weaving directly would
        classes.put(BootPack.ROOT, classes.get("io/mpilens/agent/weave/Weaving"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BootPack.order(classes));
        assertTrue(e.getMessage().contains("names net/bytebuddy/"), e.getMessage());
        assertTrue(e.getMessage().contains("WeaverJar"), "the message says how to reach it instead: " + e.getMessage());
    }

    @Test
    void aClassPathWithoutTheAgentIsRefused() {
        Map<String, byte[]> none = new TreeMap<>();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BootPack.order(none));
        assertTrue(e.getMessage().contains("MpiLensAgent"), e.getMessage());
    }
}
