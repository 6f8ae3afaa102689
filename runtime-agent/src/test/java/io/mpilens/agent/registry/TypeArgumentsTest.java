package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.agent.intercept.HandleDescriber;
import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.TypeArgument;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A derived datatype's constructor arguments, from the advice's argument array through the
 * registry's side record to what a debugger decodes. Our own seam: stand-in wrapper objects;
 * the tours check the same against Open MPI and MPJ Express.
 */
class TypeArgumentsTest {
    /** Stands in for a binding's datatype class. */
    static final class Type {
    }

    private HandleRegistry registry;
    private BindingProfile profile;
    private final Type intType = new Type();
    private final Type doubleType = new Type();
    private long intId;
    private long doubleId;

    @BeforeEach
    void fresh() {
        registry = new HandleRegistry(4, 16);
        registry.configure("test", "openmpi", false);
        RegistryLifecycleTest.Root.INSTANCE = registry;
        registry.processInitialized(registry.process(getClass().getClassLoader()), 0, 1);
        profile = new BindingProfile();
        profile.handleClasses.put(Type.class.getName(), HandleKind.DATATYPE);
        intId = registry.add(intType, spec("MPI_INT", null));
        doubleId = registry.add(doubleType, spec("MPI_DOUBLE", null));
    }

    private RowSpec spec(String name, Object[] args) {
        RowSpec s = new RowSpec(HandleKind.DATATYPE);
        s.proc = 0;
        s.name = name;
        s.call = "createStruct";
        s.bindingClass = Type.class.getName();
        if (args != null) {
            s.parents = HandleDescriber.allOfKind(profile, args, HandleKind.DATATYPE);
            s.typeArgs = HandleDescriber.typeArguments(profile, args);
        }
        return s;
    }

    private HandleInfo created(String name, Object... args) {
        registry.add(new Type(), spec(name, args));
        ReflectiveTargetReader reader = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS,
                RegistryLifecycleTest.Root.class));
        return new RegistryDecoder(reader).decode().get(0).handles().stream()
                .filter(h -> name.equals(h.name())).findFirst().orElseThrow();
    }

    private String described(HandleInfo h) {
        return TypeArgument.describe(h.typeArguments(), id -> id == intId ? "MPI_INT" : id == doubleId ? "MPI_DOUBLE" : null);
    }

    @Test
    void scalarsAndOneOldTypeInTheirOrder() {
        HandleInfo vector = created("vector", 2, 1, 4, intType);
        assertEquals("2, 1, 4, MPI_INT", described(vector));
        assertEquals(TypeArgument.Kind.TYPE, vector.typeArguments().get(3).kind());
        assertArrayEquals(new long[] {intId}, vector.typeArguments().get(3).values());
    }

    @Test
    void structBlocksWithTypesNotRegisteredOrNullShownAsSuch() {
        Type stray = new Type(); // never registered: no id
        HandleInfo struct = created("struct", new int[] {1, 2, 1}, new int[] {0, 8, 16},
                new Object[] {intType, stray, null, doubleType});
        List<TypeArgument> args = struct.typeArguments();
        assertEquals(3, args.size());
        assertArrayEquals(new long[] {1, 2, 1}, args.get(0).values());
        assertArrayEquals(new long[] {0, 8, 16}, args.get(1).values());
        assertEquals(TypeArgument.Kind.TYPES, args.get(2).kind());
        assertArrayEquals(new long[] {intId, 0, 0, doubleId}, args.get(2).values(),
                "the ids by position, whatever the parents list skipped");
        assertArrayEquals(new long[] {intId, doubleId}, Arrays.stream(struct.parents()).sorted().toArray());
    }

    @Test
    void longArraysAreCutAtTheBoundWithTheirLengthKept() {
        int[] lengths = new int[3000];
        Arrays.fill(lengths, 7);
        Object[] types = new Object[1500];
        Arrays.fill(types, intType);
        types[1499] = doubleType; // beyond the bound: not shown, but still a parent
        HandleInfo big = created("big", lengths, new int[0], types);
        TypeArgument first = big.typeArguments().get(0);
        assertTrue(first.cut());
        assertEquals(3000, first.length());
        assertEquals(RegistryLayout.TYPE_ARG_MAX_VALUES, first.values().length);
        assertFalse(big.typeArguments().get(1).cut());
        assertEquals(0, big.typeArguments().get(1).values().length);
        TypeArgument third = big.typeArguments().get(2);
        assertEquals(1500, third.length());
        assertTrue(Arrays.stream(third.values()).allMatch(id -> id == intId));
        assertTrue(described(big).contains("… (3000 values)"));
        assertTrue(Arrays.stream(big.parents()).anyMatch(id -> id == doubleId));
    }

    @Test
    void aCallWithoutArgumentsRecordsNone() {
        assertNull(HandleDescriber.typeArguments(profile, new Object[0]));
        assertTrue(created("dup").typeArguments().isEmpty());
    }
}
