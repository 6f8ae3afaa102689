package io.mpilens.agent.jit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Always inline this method where it is called, whatever the size of its own compiled code: the
 * request path must not be called out of line because the JIT compiled it alone first ("already
 * compiled into a big method"). Becomes {@code jdk.internal.vm.annotation.ForceInline} in the
 * boot pack (package doc).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ForceInline {
}
