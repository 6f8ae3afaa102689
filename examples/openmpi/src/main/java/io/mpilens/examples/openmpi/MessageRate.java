package io.mpilens.examples.openmpi;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.Request;

/**
 * Message rate of 8-byte non-blocking messages, the workload where interception costs show:
 * {@code self} (one rank sends to itself) or {@code pair} (ranks 0 and 1 exchange).
 * Each round posts an iRecv and an iSend and waits for both. {@code pingpong}: ranks 0 and 1
 * with blocking send and recv, one message each way per round. Prints the best of the
 * repetitions as {@code RATE mode=… messages_per_second=… bytes_per_message=…}, the last being
 * what the sending thread allocated per message in the last repetition, the others having warmed
 * it up (the binding's Request wrappers, and whatever the agent adds). Arguments: mode,
 * messages, repetitions, tag (default 1).
 */
public final class MessageRate {
    private MessageRate() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "self";
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        int tag = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int peer = "self".equals(mode) ? rank : (rank ^ 1);
        boolean active = "self".equals(mode) ? rank == 0 : rank < 2;
        boolean pingPong = "pingpong".equals(mode);
        ByteBuffer sendBuf = MPI.newByteBuffer(8);
        ByteBuffer recvBuf = MPI.newByteBuffer(8);
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
                        MPI.COMM_WORLD.send(sendBuf, 8, MPI.BYTE, peer, tag);
                        MPI.COMM_WORLD.recv(recvBuf, 8, MPI.BYTE, peer, tag);
                    } else {
                        MPI.COMM_WORLD.recv(recvBuf, 8, MPI.BYTE, peer, tag);
                        MPI.COMM_WORLD.send(sendBuf, 8, MPI.BYTE, peer, tag);
                    }
                }
            } else {
                for (int i = 0; i < messages; i++) {
                    pair[0] = MPI.COMM_WORLD.iRecv(recvBuf, 8, MPI.BYTE, peer, tag);
                    pair[1] = MPI.COMM_WORLD.iSend(sendBuf, 8, MPI.BYTE, peer, tag);
                    Request.waitAll(pair);
                }
            }
            double rate = messages / ((System.nanoTime() - t0) / 1e9);
            best = Math.max(best, rate);
            // the same in this thread's CPU time: what the loop costs, whether or not the machine is busy
            bestCpu = Math.max(bestCpu, messages / ((threads.getCurrentThreadCpuTime() - c0) / 1e9));
        }
        double perMessage = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated) / (double) messages;
        if (active && rank == 0) {
            // one println: mpirun --tag-output tags every flushed piece of a line
            System.out.println(String.format(java.util.Locale.ROOT, "RATE mode=%s messages_per_second=%.0f"
                    + " bytes_per_message=%.1f cpu_messages_per_second=%.0f", mode, best, perMessage, bestCpu));
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}
