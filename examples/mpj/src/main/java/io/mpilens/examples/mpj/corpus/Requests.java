package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import mpi.Intracomm;
import mpi.MPI;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/** Point-to-point and persistent requests of MPJ Express, completed every way the binding has. */
public final class Requests {
    private Requests() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            int peer = rank ^ 1;
            int[] in = new int[4];
            int[] out = {rank * 10, rank * 10 + 1, rank * 10 + 2, rank * 10 + 3};
            Request r = world.Irecv(in, 0, 1, MPI.INT, peer, 1);
            Request s = world.Isend(out, 0, 1, MPI.INT, peer, 1);
            Status st = r.Wait();
            s.Wait();
            say("irecv", in[0], st.source, st.tag);
            r = world.Irecv(in, 0, 1, MPI.INT, peer, 2);
            s = world.Issend(out, 1, 1, MPI.INT, peer, 2);
            while (r.Test() == null) Thread.yield();
            while (s.Test() == null) Thread.yield();
            say("issend/test", in[0]);
            Request[] rs = {world.Irecv(in, 0, 1, MPI.INT, peer, 3), world.Isend(out, 2, 1, MPI.INT, peer, 3)};
            Request.Waitall(rs);
            say("waitall", in[0]);
            rs = new Request[] {world.Irecv(in, 0, 1, MPI.INT, peer, 4), world.Isend(out, 3, 1, MPI.INT, peer, 4)};
            Request.Waitany(rs);
            Request.Waitall(rs);
            rs = new Request[] {world.Irecv(in, 0, 1, MPI.INT, peer, 5), world.Isend(out, 0, 1, MPI.INT, peer, 5)};
            while (Request.Testall(rs) == null) Thread.yield();
            rs = new Request[] {world.Irecv(in, 0, 1, MPI.INT, peer, 6), world.Isend(out, 0, 1, MPI.INT, peer, 6)};
            Request.Waitsome(rs);
            Request.Waitall(rs);
            rs = new Request[] {world.Irecv(in, 0, 1, MPI.INT, peer, 7), world.Isend(out, 1, 1, MPI.INT, peer, 7)};
            Request.Testsome(rs);
            Request.Waitall(rs);
            rs = new Request[] {world.Irecv(in, 0, 1, MPI.INT, peer, 8), world.Isend(out, 2, 1, MPI.INT, peer, 8)};
            while (Request.Testany(rs) == null) Thread.yield();
            Request.Waitall(rs);
            say("array completions", in[0]);

            Prequest precv = world.Recv_init(in, 0, 2, MPI.INT, peer, 20);
            Prequest psend = world.Send_init(out, 0, 2, MPI.INT, peer, 20);
            for (int round = 0; round < 3; round++) {
                precv.Start();
                psend.Start();
                precv.Wait();
                psend.Wait();
            }
            Prequest.Startall(new Prequest[] {precv, psend});
            Request.Waitall(new Request[] {precv, psend});
            say("persistent", in[1]);
            Prequest never = world.Ssend_init(out, 0, 1, MPI.INT, peer, 21); // never started: simply dropped
            say("never started", never.Is_null());

            Request b = world.Isend(out, 0, 1, MPI.INT, peer, 30);
            Status probed = world.Probe(peer, 30);
            world.Recv(in, 0, 1, MPI.INT, peer, 30);
            b.Wait();
            say("probe", probed.source, world.Iprobe(peer, 99) == null);
            Status sr = world.Sendrecv(out, 0, 1, MPI.INT, peer, 31, in, 0, 1, MPI.INT, peer, 31);
            say("sendrecv", in[0], sr.tag);
            for (int i = 0; i < 6; i++) {
                Request q = world.Isend(out, 0, 1, MPI.INT, peer, 40 + i);
                world.Recv(in, 0, 1, MPI.INT, peer, 40 + i);
                q.Wait();
            }
            say("wait loop", in[0]);
            Corpus.notInBinding("free() of a request (MPJ Express 0.44's Request has none: a finished request is dropped)");
            Corpus.notInBinding("matched probes (mProbe/imProbe, Message: not in the mpiJava 1.2 API)");
            Corpus.notInBinding("nonblocking collectives (not in MPJ Express 0.44)");
        });
    }
}
