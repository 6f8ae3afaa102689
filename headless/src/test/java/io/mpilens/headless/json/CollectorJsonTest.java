package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.HostView;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.CollectorReport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A collector's report survives the wire: what {@code collect} prints is what the front end reads back. */
class CollectorJsonTest {
    private static final Instant T = Instant.ofEpochMilli(1_795_648_096_780L);

    @Test
    void aReportReadBackIsTheReportWritten() throws IOException {
        JobRecord rank0 = new JobRecord("1883439105", 0, 4, 7378, 7372, "sim1", "127.0.0.1:48875", "openmpi", 0, T,
                T.plusMillis(5), "INITIALIZED", "0.1.0-SNAPSHOT", Path.of("/tmp/mpilens-0/jobs/1883439105/rank-0.json"), null);
        JobRecord spawned = new JobRecord("1883439105", 0, 1, 7400, 7372, "sim1", null, "openmpi", 0, T.plusSeconds(9),
                T.plusSeconds(9), "FINALIZED", "0.1.0-SNAPSHOT", Path.of("/tmp/x/spawned-ns-0.json"), T.plusSeconds(20),
                "1883439105", "ns");
        CollectorReport written = new CollectorReport("sim1", "1883439105",
                List.of(new CollectorReport.Record(rank0, true), new CollectorReport.Record(spawned, null)),
                List.of(new RankStatus(0, 0, 7378, 7372, "sim1", "127.0.0.1:48875", ProcessState.UNAVAILABLE,
                        "no answer within the deadline (stopped or overloaded?); process 7378 is stopped (SIGSTOP?)", -1, null)),
                List.of(new HostView.Daemon(7372, "orted", true)),
                List.of("/tmp/mpilens-0/jobs/x/rank-1.json is accessible to other users (\"rw-r--r--\"): refused"));
        List<String> lines = CollectorJson.lines(written);
        assertEquals(6, lines.size(), String.join("\n", lines));
        for (String l : lines) assertTrue(l.startsWith("{\"kind\":\"") && !l.contains("\n"), l);
        assertEquals(written, CollectorJson.parse(lines));
    }

    @Test
    void snapshotsAndThreadFramesTravelWithTheirRanks() throws IOException {
        ProcessSnapshot ring = io.mpilens.headless.testing.Snapshots.ring();
        BindingFrame barrier = new BindingFrame("main", "mpi.Intracomm", "barrier", "mpi.Intracomm", 0x7f3a00c0L,
                java.util.Arrays.asList(7, null), null, null, 1L, null, 1L);
        BindingFrame waitAll = new BindingFrame("worker \"2\"", "mpi.Request", "waitAll", null, null, List.of(),
                "MPI_COMM_WORLD", List.of(0, 2), null,
                java.util.Arrays.asList(new BindingFrame.Element(5L, null), new BindingFrame.Element(null, null)), null);
        CollectorReport written = new CollectorReport("sim2", "j",
                List.of(), List.of(new RankStatus(0, 0, 4242, 7372, "sim2", "127.0.0.1:4000", ProcessState.OK, null, 12, ring),
                        new RankStatus(1, 0, 4243, 7372, "sim2", "127.0.0.1:4001", ProcessState.UNAVAILABLE, "no answer", -1, null)),
                List.of(), List.of(), Map.of(0, List.of(barrier, waitAll), 1, List.of()));
        List<String> lines = CollectorJson.lines(written);
        assertEquals(List.of("collector", "rank", "snapshot", "rank", "frames", "frames"),
                lines.stream().map(l -> l.substring(9, l.indexOf('"', 9))).toList(), String.join("\n", lines));
        CollectorReport read = CollectorJson.parse(lines);
        assertEquals(written.frames(), read.frames());
        assertEquals(2, read.ranks().size());
        io.mpilens.headless.testing.SameSnapshots.assertSame(List.of(ring), List.of(read.ranks().get(0).snapshot()));
        assertNull(read.ranks().get(1).snapshot());
        RankStatus r = read.ranks().get(0);
        assertEquals(written.ranks().get(0), new RankStatus(r.rank(), r.epoch(), r.pid(), r.parentPid(), r.host(), r.address(),
                r.state(), r.evidence(), r.answerMillis(), ring));
        assertEquals(written.ranks().get(1), read.ranks().get(1));
    }

    @Test
    void outputThatIsNoReportSaysWhatItSaw() {
        IOException e = assertThrows(IOException.class, () -> CollectorJson.parse(List.of("bash: mpilens: command not found")));
        assertTrue(e.getMessage().contains("command not found"), e.getMessage());
        IOException v = assertThrows(IOException.class, () -> CollectorJson.parse(
                List.of("{\"kind\":\"collector\",\"schema\":\"mpilens-collect/9\",\"host\":\"h\",\"job\":null}")));
        assertTrue(v.getMessage().contains("expected mpilens-collect/2 or mpilens-collect/1"), v.getMessage());
    }

    @Test
    void aReportOfAnOlderCollectorIsStillRead() throws IOException {
        CollectorReport old = CollectorJson.parse(List.of("{\"kind\":\"collector\",\"schema\":\"mpilens-collect/1\",\"host\":\"h1\",\"job\":\"j\"}"));
        assertEquals("h1", old.host());
        assertEquals("j", old.job());
        assertTrue(CollectorJson.lines(old).get(0).contains("\"schema\":\"mpilens-collect/2\""), "written as /2");
    }
}
