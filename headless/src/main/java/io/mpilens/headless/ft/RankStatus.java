package io.mpilens.headless.ft;

import io.mpilens.api.model.ProcessSnapshot;

/**
 * One rank as observed in one round: its state with the evidence for it, where it runs, and
 * the snapshot read from it (null when it did not answer).
 *
 * @param epoch     the rank's incarnation (from its job record; 0 without one)
 * @param parentPid the launcher daemon that started it ({@code mpirun}, {@code orted}, MPJ's daemon), 0 if unknown
 * @param answerMillis how long it took to answer, -1 when it did not
 */
public record RankStatus(int rank, int epoch, long pid, long parentPid, String host, String address,
                         ProcessState state, String evidence, long answerMillis, ProcessSnapshot snapshot) {
}
