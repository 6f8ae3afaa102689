package io.mpilens.agent;

import io.mpilens.agent.profile.BindingProfile;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;

/**
 * The weaving as the rest of the agent sees it. Its one implementation,
 * {@code io.mpilens.agent.weave.Weaving}, names Byte Buddy's types and so lives in the system
 * class loader with Byte Buddy, while the rest of the agent may be defined in the boot loader
 * ({@code io.mpilens.agent.boot.BootPack}): the boot loader cannot see the system class path, so
 * nothing outside {@code weave} names a class of it; {@link WeaverJar} finds it by name.
 */
public interface Weaver {
    /** The transformer the woven-class cache calls on a miss. */
    ClassFileTransformer transformer(BindingProfile[] profiles, AgentOptions options, boolean late, BindingProfile present);

    /** Installs the transformation itself (late attach: retransforms what is loaded). */
    void install(Instrumentation inst, BindingProfile[] profiles, AgentOptions options, boolean late, BindingProfile present);
}
