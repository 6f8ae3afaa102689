package io.mpilens.agent.boot;

import java.security.ProtectionDomain;

/**
 * The one class of the agent compiled against java.base's internals: it calls
 * {@code jdk.internal.misc.Unsafe.defineClass} directly, which {@link BootPack} makes accessible
 * (java.base exports the package to this module only, at start-up) before it makes one of these.
 * A direct call, not reflection: 80 reflective calls cost a generated accessor (its bytecode
 * assembled and compiled by the JIT in every rank JVM; docs/performance.md, start-up). Compiled by
 * its own execution of the compiler (runtime-agent/pom.xml); nothing else names it, so a JDK
 * without that method fails here, at link time, as a reflective lookup would have.
 */
final class Define implements BootPack.Definer {
    private final jdk.internal.misc.Unsafe unsafe = jdk.internal.misc.Unsafe.getUnsafe();

    @Override
    public Class<?> define(String name, byte[] b, int off, int len, ProtectionDomain domain) {
        return unsafe.defineClass(name, b, off, len, null, domain);
    }
}
