package io.mpilens.headless.text;

import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;

/**
 * One member of a communicator as a cell of a picture (the Eclipse view's boxes, {@code --svg}):
 * the one place that says how a replacement (FT-MPI's REBUILD) is marked. In a communicator built
 * with the replacement its cell is {@code 2 ← pid 4711, epoch 1}; in one that still holds the failed
 * process, the failed cell says where its rank went: {@code FAILED → epoch 1 JOINING}.
 *
 * @param rank        the member, a COMM_WORLD rank
 * @param label       {@code r2}, or {@code 2 ← pid 4711, epoch 1} for a replacement
 * @param detail      its state, or {@code FAILED → epoch 1 OK} for a failed member replaced elsewhere
 * @param state       the state of the incarnation that is the member ({@code UNAVAILABLE} when not read)
 * @param tooltip     {@code rank 2 epoch 1: OK — pid 4711 on node-a}, and who replaced a failed member
 * @param epoch       the member's epoch when it is a replacement, else null
 * @param replacement where a failed member's rank went (its replacement, not a member here), else null
 */
public record MemberCell(int rank, String label, String detail, ProcessState state, String tooltip, Integer epoch,
                         RankStatus replacement) {
    public static MemberCell of(JobModel m, CommunicatorView c, int rank) {
        // the incarnation that is the member: a replacement (REBUILD) where the model says so
        RankStatus st = m.member(c, rank).orElse(null);
        ProcessState s = st == null ? ProcessState.UNAVAILABLE : st.state();
        Integer epoch = c.epochs().get(rank);
        String where = st == null ? " \u2014 not read" : " \u2014 pid " + st.pid() + " on " + st.host()
                + (s == ProcessState.OK && epoch == null ? "" : " \u2014 " + st.evidence());
        String label = epoch == null || st == null ? "r" + rank : rank + " \u2190 pid " + st.pid() + ", epoch " + epoch;
        // a failed member whose replacement is not a member of this one: where the replacement is now
        RankStatus next = epoch == null && s == ProcessState.FAILED ? m.replacement(rank).orElse(null) : null;
        String detail = next == null ? s.name() : s.name() + " \u2192 epoch " + next.epoch() + " " + next.state();
        String replaced = next == null ? "" : "\nreplaced by pid " + next.pid() + ", epoch " + next.epoch() + " (" + next.state() + ")";
        return new MemberCell(rank, label, detail, s, "rank " + rank + (epoch == null ? "" : " epoch " + epoch) + ": " + s
                + where + replaced, st == null ? null : epoch, next);
    }
}
