/**
 * Hints to HotSpot's JIT for the agent's hot path, written as the agent's own annotations and
 * renamed to java.base's {@code jdk.internal.vm.annotation} ones when the boot pack is built
 * ({@code io.mpilens.agent.boot.BootPack#jitAnnotations}): HotSpot honours those only in classes
 * of the boot (or platform) loader, which is where the pack defines the agent's classes; javac
 * cannot name them under {@code --release}. In a class loaded any other way the annotations are
 * ignored, and the code means the same with or without them.
 */
package io.mpilens.agent.jit;
