package io.mpilens.examples.mpj;

import mpi.MPI;
import mpi.Request;

/**
 * The Open MPI example's message-rate loop for MPJ Express: 8-byte non-blocking messages,
 * {@code self} (rank 0 sends to itself) or {@code pair} (ranks 0 and 1 exchange); each round
 * posts an Irecv and an Isend and waits for both. Prints the best of the repetitions as
 * {@code RATE mode=… messages_per_second=… bytes_per_message=…}, the last being what the sending
 * thread allocated per message in the last repetition, the others having warmed it up.
 * Arguments: mode, messages, repetitions, tag (default 1).
 */
public final class MessageRate {
    private MessageRate() {
    }

    public static void main(String[] args) throws Exception {
        // MPJ Express passes its own arguments first: MPI.Init returns the application's
        String[] app = MPI.Init(args);
        String mode = app.length > 0 ? app[0] : "pair";
        int messages = app.length > 1 ? Integer.parseInt(app[1]) : 100_000;
        int repetitions = app.length > 2 ? Integer.parseInt(app[2]) : 7;
        int tag = app.length > 3 ? Integer.parseInt(app[3]) : 1;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int rank = MPI.COMM_WORLD.Rank();
        int peer = "self".equals(mode) ? rank : (rank ^ 1);
        boolean active = "self".equals(mode) ? rank == 0 : rank < 2;
        boolean pingPong = "pingpong".equals(mode);
        byte[] sendBuf = new byte[8];
        byte[] recvBuf = new byte[8];
        Request[] pair = new Request[2];
        double best = 0;
        double bestCpu = 0;
        long allocated = 0;
        for (int r = 0; r < repetitions && active; r++) {
            if (r == repetitions - 1) allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            long t0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            if (pingPong) {
                // blocking calls, a message each way per round: 'messages' counts both directions
                for (int i = 0; i < messages; i += 2) {
                    if (rank == 0) {
                        MPI.COMM_WORLD.Send(sendBuf, 0, 8, MPI.BYTE, peer, tag);
                        MPI.COMM_WORLD.Recv(recvBuf, 0, 8, MPI.BYTE, peer, tag);
                    } else {
                        MPI.COMM_WORLD.Recv(recvBuf, 0, 8, MPI.BYTE, peer, tag);
                        MPI.COMM_WORLD.Send(sendBuf, 0, 8, MPI.BYTE, peer, tag);
                    }
                }
            } else {
                for (int i = 0; i < messages; i++) {
                    pair[0] = MPI.COMM_WORLD.Irecv(recvBuf, 0, 8, MPI.BYTE, peer, tag);
                    pair[1] = MPI.COMM_WORLD.Isend(sendBuf, 0, 8, MPI.BYTE, peer, tag);
                    Request.Waitall(pair);
                }
            }
            double rate = messages / ((System.nanoTime() - t0) / 1e9);
            best = Math.max(best, rate);
            // the same in this thread's CPU time: what the loop costs, whether or not the machine is busy
            bestCpu = Math.max(bestCpu, messages / ((threads.getCurrentThreadCpuTime() - c0) / 1e9));
        }
        double perMessage = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated) / (double) messages;
        if (active && rank == 0) {
            System.out.println(String.format(java.util.Locale.ROOT, "RATE mode=%s messages_per_second=%.0f"
                    + " bytes_per_message=%.1f cpu_messages_per_second=%.0f", mode, best, perMessage, bestCpu));
        }
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
    }
}
