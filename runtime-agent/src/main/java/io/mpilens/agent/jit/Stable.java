package io.mpilens.agent.jit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The elements of this array field change at most once, from null to their value: the JIT may
 * fold a read of a non-null element of a constant array to that value. Becomes {@code
 * jdk.internal.vm.annotation.Stable} in the boot pack (package doc).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Stable {
}
