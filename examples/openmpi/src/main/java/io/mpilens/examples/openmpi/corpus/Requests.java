package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.nio.IntBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Message;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * Point-to-point requests, persistent requests and matched probes, completed every way the
 * binding has: one at a time, over arrays with null requests in them, freed after completion.
 */
public final class Requests {
    private Requests() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            int peer = rank ^ 1;
            IntBuffer in = MPI.newIntBuffer(8);
            IntBuffer out = MPI.newIntBuffer(8);
            for (int i = 0; i < 8; i++) out.put(i, rank * 10 + i);

            // one request at a time: waitFor, waitStatus, test until done, free after completion
            Request r = world.iRecv(in, 1, MPI.INT, peer, 1);
            Request s = world.iSend(out, 1, MPI.INT, peer, 1);
            r.waitFor();
            s.waitFor();
            say("iRecv", in.get(0), r.isNull());
            r.free();
            s.free();
            r = world.iRecv(in, 1, MPI.INT, peer, 2);
            s = world.isSend(out, 1, MPI.INT, peer, 2);
            Status st = r.waitStatus();
            while (s.testStatus() == null) Thread.yield();
            say("waitStatus", st.getSource(), st.getTag());
            r = world.iRecv(in, 1, MPI.INT, peer, 3);
            world.barrier();
            s = world.irSend(out, 1, MPI.INT, peer, 3);
            while (!r.test()) Thread.yield();
            s.waitFor();
            say("irSend/test", in.get(0));
            MPI.attachBuffer(new byte[1024]);
            r = world.iRecv(in, 1, MPI.INT, peer, 4);
            s = world.ibSend(out, 1, MPI.INT, peer, 4);
            Status got = r.getStatus();
            r.waitFor();
            s.waitFor();
            MPI.detachBuffer();
            say("ibSend", in.get(0), got == null ? "status" : "status");

            // arrays with null requests in them
            Request[] rs = {world.iRecv(in, 1, MPI.INT, peer, 5), MPI.REQUEST_NULL, world.iSend(out, 1, MPI.INT, peer, 5)};
            Request.waitAll(rs);
            say("waitAll with a null request");
            rs = new Request[] {MPI.REQUEST_NULL, world.iRecv(in, 1, MPI.INT, peer, 6), world.iSend(out, 1, MPI.INT, peer, 6)};
            int done = 0;
            while (done < 2) {
                int i = Request.waitAny(rs);
                if (i != MPI.UNDEFINED) done++;
            }
            say("waitAny twice", Request.waitAny(rs) == MPI.UNDEFINED);
            rs = new Request[] {world.iRecv(in, 1, MPI.INT, peer, 7), MPI.REQUEST_NULL, world.iSend(out, 1, MPI.INT, peer, 7)};
            int finished = 0;
            while (finished < 2) {
                int[] some = Request.testSome(rs);
                if (some != null) finished += some.length;
            }
            say("testSome", finished);
            rs = new Request[] {world.iRecv(in, 1, MPI.INT, peer, 8), world.iSend(out, 1, MPI.INT, peer, 8), MPI.REQUEST_NULL};
            while (!Request.testAll(rs)) Thread.yield();
            rs = new Request[] {world.iRecv(in, 1, MPI.INT, peer, 9), world.iSend(out, 1, MPI.INT, peer, 9)};
            int left = 2;
            while (left > 0) {
                int[] some = Request.waitSome(rs);
                left -= some == null ? 0 : some.length;
            }
            rs = new Request[] {world.iRecv(in, 1, MPI.INT, peer, 10), world.iSend(out, 1, MPI.INT, peer, 10)};
            int any = 0;
            while (any < 2) {
                if (Request.testAny(rs) != MPI.UNDEFINED) any++;
            }
            Status[] all = Request.waitAllStatus(new Request[] {world.iRecv(in, 1, MPI.INT, peer, 11),
                world.iSend(out, 1, MPI.INT, peer, 11)});
            say("waitAllStatus", all.length, in.get(0));

            // persistent requests: started, completed, started again, freed
            Prequest precv = world.recvInit(in, 2, MPI.INT, peer, 20);
            Prequest psend = world.sendInit(out, 2, MPI.INT, peer, 20);
            for (int round = 0; round < 3; round++) {
                precv.start();
                psend.start();
                precv.waitFor();
                psend.waitFor();
            }
            Prequest.startAll(new Prequest[] {precv, psend});
            Request.waitAll(new Request[] {precv, psend});
            say("persistent", in.get(1));
            precv.free();
            psend.free();
            Prequest ps = world.sSendInit(out, 1, MPI.INT, peer, 21);
            Prequest pb = world.bSendInit(out, 1, MPI.INT, peer, 22);
            Prequest pr = world.rSendInit(out, 1, MPI.INT, peer, 23);
            ps.free();
            pb.free();
            pr.free();

            // matched probes
            s = world.iSend(out, 1, MPI.INT, peer, 30);
            Message m = new Message();
            Status probed = m.mProbe(peer, 30, world);
            int[] one = new int[1];
            m.mRecv(one, 1, MPI.INT);
            s.waitFor();
            say("mProbe/mRecv", probed.getSource(), one[0]);
            s = world.iSend(out, 1, MPI.INT, peer, 31);
            Message im = new Message();
            while (im.imProbe(peer, 31, world) == null) Thread.yield();
            Request ir = im.imRecv(in, 1, MPI.INT);
            ir.waitFor();
            s.waitFor();
            say("imProbe/imRecv", in.get(0), im.isNull());
            s = world.iSend(out, 1, MPI.INT, peer, 32);
            Status p = world.probe(peer, 32);
            world.recv(one, 1, MPI.INT, peer, 32);
            s.waitFor();
            say("probe", p.getTag(), world.iProbe(peer, 99) == null);

            // a receive cancelled before it matched
            Request c = world.iRecv(in, 1, MPI.INT, peer, 40);
            c.cancel();
            Status cs = c.waitStatus();
            say("cancelled", cs.isCancelled());

            // a nonblocking collective completed, then freed, in a loop (the loop that said 'untracked')
            IntBuffer b = MPI.newIntBuffer(1);
            for (int i = 0; i < 6; i++) {
                if (rank == 0) b.put(0, i);
                Request q = world.iBcast(b, 1, MPI.INT, 0);
                q.waitFor();
                q.free();
            }
            say("iBcast loop", b.get(0));
        });
    }
}
