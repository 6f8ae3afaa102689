package io.mpilens.headless.launch;

/**
 * One line a job printed. {@code rank} is the COMM_WORLD rank when the launcher tags output
 * (Open MPI {@code --tag-output}), {@link #UNKNOWN_RANK} otherwise (MPJ merges all ranks
 * into the starter's stdout, and the launchers' own messages carry no rank).
 */
public record OutputLine(int rank, boolean stderr, String text) {
    public static final int UNKNOWN_RANK = -1;

    @Override
    public String toString() {
        return (rank == UNKNOWN_RANK ? "" : "[" + rank + "] ") + (stderr ? "(stderr) " : "") + text;
    }
}
