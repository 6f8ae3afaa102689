package io.mpilens.headless.share;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A reader's sleep, before its {@link BoundedPoll}, until the packet it polls for is due: at most
 * the poll budget, woken ({@link LockSupport#unpark}) by the thread that makes the packet due. When
 * one such sleep runs out (the packet was late) the next one does not sleep, so that a reader never
 * waits for a late packet twice in a row. One per reader, used by that reader's thread alone.
 */
final class DueWait {
    /** Whether the packet is due now. */
    private final BooleanSupplier due;
    private boolean late;

    DueWait(BooleanSupplier due) {
        this.due = due;
    }

    /**
     * Sleeps, when {@code wanted}, at most {@code budgetNanos}, until the packet is due: true then,
     * and the poll that follows may catch it. False without sleeping when not {@code wanted}, with no
     * budget, when the process polls as much as it may, when something is already there to read in
     * {@code in}, or when the last sleep ran out; false after sleeping the whole budget.
     */
    boolean await(boolean wanted, InputStream in, long budgetNanos) throws IOException {
        if (!wanted || budgetNanos <= 0 || !BoundedPoll.mayPoll() || in.available() > 0) return false;
        if (late) {
            late = false;
            return false;
        }
        long deadline = System.nanoTime() + budgetNanos;
        while (!due.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                late = true;
                return false;
            }
            LockSupport.parkNanos(this, left);
        }
        return true;
    }
}
