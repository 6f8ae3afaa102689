package io.mpilens.headless.ft;

import java.util.List;

/** One host: its ranks and the launcher daemons that started them. */
public record HostView(String host, HostState state, List<RankStatus> ranks, List<Daemon> daemons) {
    /** A launcher daemon ({@code mpirun}, {@code orted}, MPJ's daemon): the parent process of ranks. */
    public record Daemon(long pid, String command, boolean alive) {
    }
}
