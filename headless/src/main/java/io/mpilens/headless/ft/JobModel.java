package io.mpilens.headless.ft;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The fault-tolerance picture of a job at one moment, and the transitions that led to it. */
public record JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                       List<HostView> hosts, List<Transition> timeline) {
    public Optional<RankStatus> rank(int rank) {
        return processes.stream().filter(p -> p.rank() == rank).findFirst();
    }

    public Optional<CommunicatorView> communicator(String label) {
        return communicators.stream().filter(c -> c.label().equals(label)).findFirst();
    }
}
