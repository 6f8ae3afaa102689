package io.mpilens.headless.launch;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The MPI runtimes mpilens can launch a Java job on. */
public enum Binding {
    /** Open MPI's Java bindings under {@code mpirun}: one JVM per rank. */
    OPENMPI("openmpi"),
    /** MPJ Express {@code -dev multicore}: all ranks are threads of one JVM. */
    MPJ_MULTICORE("mpj-multicore"),
    /** MPJ Express {@code -dev niodev}: one JVM per rank, spawned by a daemon. */
    MPJ_NIODEV("mpj-niodev");

    private final String id;

    Binding(String id) {
        this.id = id;
    }

    /** The name users type, e.g. {@code mpj-niodev}. */
    public String id() {
        return id;
    }

    /** True for the MPJ Express devices. */
    public boolean isMpj() {
        return this != OPENMPI;
    }

    /** How many JVMs run the ranks of a job of {@code np} ranks. */
    public int rankJvms(int np) {
        return this == MPJ_MULTICORE ? 1 : np;
    }

    /** Parses a name as users type it ({@code openmpi}, {@code mpj-multicore}, {@code mpj-niodev}). */
    public static Binding parse(String text) {
        String s = text == null ? "" : text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Binding b : values()) {
            if (b.id.equals(s)) return b;
        }
        throw new IllegalArgumentException("unknown binding '" + text + "': use one of "
                + Arrays.stream(values()).map(Binding::id).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return id;
    }
}
