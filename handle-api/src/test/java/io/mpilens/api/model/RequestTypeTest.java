package io.mpilens.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class RequestTypeTest {
    @Test
    void bothBindingsNamesOfEachKindOfRequest() {
        // Open MPI 4.1's Java names (javap of mpi.Comm, Intracomm, File, Win, Message) and MPJ Express 0.44's
        for (String call : new String[] {"iSend", "ibSend", "isSend", "irSend", "iRecv", "imRecv", "sendInit", "bSendInit",
            "sSendInit", "rSendInit", "recvInit", "Isend", "Ibsend", "Issend", "Irsend", "Irecv", "Send_init",
            "Bsend_init", "Ssend_init", "Rsend_init", "Recv_init"}) {
            assertEquals(RequestType.POINT_TO_POINT, RequestType.ofCall(call), call);
        }
        for (String call : new String[] {"iBarrier", "iBcast", "iAllReduce", "iReduceScatterBlock", "iExScan",
            "iNeighborAllToAllv", "iAllToAllw", "iGatherv"}) {
            assertEquals(RequestType.COLLECTIVE, RequestType.ofCall(call), call);
        }
        for (String call : new String[] {"iRead", "iReadAtAll", "iWriteShared", "iWriteAt"}) {
            assertEquals(RequestType.FILE, RequestType.ofCall(call), call);
        }
        for (String call : new String[] {"rPut", "rGet", "rAccumulate", "rGetAccumulate"}) {
            assertEquals(RequestType.ONE_SIDED, RequestType.ofCall(call), call);
        }
        assertEquals("point-to-point", RequestType.POINT_TO_POINT.label());
    }

    @Test
    void aCallNotKnownHasNoType() {
        assertNull(RequestType.ofCall("getRequest"));
        assertNull(RequestType.ofCall(null));
        assertNull(HandleInfo.builder(1, HandleKind.COMMUNICATOR).creatingCall("iSend").build().requestType(),
                "only requests have a request type");
    }
}
