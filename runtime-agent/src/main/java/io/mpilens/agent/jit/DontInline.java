package io.mpilens.agent.jit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Never inline this method: a rare path (an eviction, a lookup past its first probe) stays out of
 * the compiled code of the hot path that calls it. Becomes {@code
 * jdk.internal.vm.annotation.DontInline} in the boot pack (package doc).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface DontInline {
}
