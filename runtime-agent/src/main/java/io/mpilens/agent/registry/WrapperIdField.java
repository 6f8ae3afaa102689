package io.mpilens.agent.registry;

import io.mpilens.api.registry.RegistryLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * The wrapper id field ({@link RegistryLayout#WRAPPER_ID_FIELD}) the agent adds to the root class
 * of each handle hierarchy it transforms at load time: set when the wrapper is registered, so a
 * debugger holding a wrapper reads its handle id with one field read. Through the setter the
 * weaver adds with it ({@link WrapperId}); by reflection where a class has the field without it.
 * Classes without the field (loaded before a late attach, request classes) are simply skipped.
 * Never throws.
 */
final class WrapperIdField {
    /** Per class: the field (declared by the class or a superclass), if it has one. */
    private static final ClassValue<Optional<Field>> FIELD = new ClassValue<>() {
        @Override
        protected Optional<Field> computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField(RegistryLayout.WRAPPER_ID_FIELD);
                    if (f.getType() != long.class || Modifier.isStatic(f.getModifiers())) return Optional.empty();
                    f.setAccessible(true);
                    return Optional.of(f);
                } catch (NoSuchFieldException e) {
                    // keep looking in the superclass
                } catch (RuntimeException e) { // inaccessible: behave as if absent
                    return Optional.empty();
                }
            }
            return Optional.empty();
        }
    };

    private WrapperIdField() {
    }

    static void set(Object wrapper, long id) {
        if (wrapper == null) return;
        if (wrapper instanceof WrapperId) { // woven with its setter: no reflection
            ((WrapperId) wrapper).mpilens$setId(id);
            return;
        }
        try {
            Optional<Field> f = FIELD.get(wrapper.getClass());
            if (f.isPresent()) f.get().setLong(wrapper, id);
        } catch (Throwable t) {
            // the field is a shortcut for debuggers; the wrapper index still answers
        }
    }
}
