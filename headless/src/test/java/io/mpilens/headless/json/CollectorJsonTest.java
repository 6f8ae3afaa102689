package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.CollectorReport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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
        assertEquals(written, CollectorReport.parse(lines));
    }

    @Test
    void outputThatIsNoReportSaysWhatItSaw() {
        IOException e = assertThrows(IOException.class, () -> CollectorReport.parse(List.of("bash: mpilens: command not found")));
        assertTrue(e.getMessage().contains("command not found"), e.getMessage());
        IOException v = assertThrows(IOException.class, () -> CollectorReport.parse(
                List.of("{\"kind\":\"collector\",\"schema\":\"mpilens-collect/9\",\"host\":\"h\",\"job\":null}")));
        assertTrue(v.getMessage().contains("expected mpilens-collect/1"), v.getMessage());
    }
}
