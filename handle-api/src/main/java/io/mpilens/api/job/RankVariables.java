package io.mpilens.api.job;

/**
 * The environment variables in which a launcher tells each process its COMM_WORLD rank and size,
 * before MPI is initialised: the one list for the agent (a spawned process's record, a late
 * attach) and agentless mode (read from the target's heap). Open MPI's {@code mpirun}/{@code prterun}
 * sets them; MPJ Express passes the rank on the command line and sets none.
 */
public final class RankVariables {
    /** Open MPI: the process's rank in COMM_WORLD. */
    public static final String OMPI_RANK = "OMPI_COMM_WORLD_RANK";
    /** Open MPI: the size of COMM_WORLD. */
    public static final String OMPI_SIZE = "OMPI_COMM_WORLD_SIZE";
    /** PMIx (under Open MPI 5's launcher and others): the process's rank in its namespace; no size beside it. */
    public static final String PMIX_RANK = "PMIX_RANK";

    private RankVariables() {
    }
}
