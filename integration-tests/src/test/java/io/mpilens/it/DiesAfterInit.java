package io.mpilens.it;

/**
 * An Open MPI rank that initializes MPI, duplicates COMM_WORLD and dies of an uncaught
 * exception. Calls the binding reflectively: the test class path has no mpi.jar at compile time.
 */
public final class DiesAfterInit {
    public static void main(String[] args) throws Exception {
        initAndDup(args);
        throw new IllegalStateException("simulated crash of a rank");
    }

    /** MPI_Init, then a duplicate of COMM_WORLD (a handle the agent records), returned. */
    static Object initAndDup(String[] args) throws Exception {
        Class<?> mpi = Class.forName("mpi.MPI");
        mpi.getMethod("Init", String[].class).invoke(null, (Object) args);
        Object world = mpi.getField("COMM_WORLD").get(null);
        Object dup = world.getClass().getMethod("dup").invoke(world);
        System.out.println("MPILENS-TEST dup=" + (dup != null));
        return dup;
    }
}
