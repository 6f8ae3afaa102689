package io.mpilens.headless.ft;

import io.mpilens.api.model.ProcessSnapshot;

/**
 * One rank as observed in one round: its state with the evidence for it, where it runs, and
 * the snapshot read from it (null when it did not answer).
 *
 * @param epoch     the rank's incarnation (from its job record; 0 without one)
 * @param parentPid the launcher daemon that started it ({@code mpirun}, {@code orted}, MPJ's daemon), 0 if unknown
 * @param answerMillis how long it took to answer, -1 when it did not
 * @param processAlive whether its process was seen running on its host: true, false, or null when nobody
 *                     could look (another host whose collector did not answer, a bare address, no dump).
 *                     What tells an {@code UNAVAILABLE} rank that is there but late (an alarm of the
 *                     {@link StatusWord}) from one whose status is undefined
 */
public record RankStatus(int rank, int epoch, long pid, long parentPid, String host, String address,
                         ProcessState state, String evidence, long answerMillis, ProcessSnapshot snapshot,
                         Boolean processAlive) {

    /** Whether its process runs not known beyond what its state says (an answering rank's does). */
    public RankStatus(int rank, int epoch, long pid, long parentPid, String host, String address,
                      ProcessState state, String evidence, long answerMillis, ProcessSnapshot snapshot) {
        this(rank, epoch, pid, parentPid, host, address, state, evidence, answerMillis, snapshot,
                snapshot != null ? Boolean.TRUE : null);
    }

    /** The same with another snapshot (a collector's report: the snapshot follows its rank's line). */
    public RankStatus withSnapshot(ProcessSnapshot s) {
        return new RankStatus(rank, epoch, pid, parentPid, host, address, state, evidence, answerMillis, s,
                processAlive != null ? processAlive : s != null ? Boolean.TRUE : null);
    }
}
