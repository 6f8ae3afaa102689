package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mpilens.api.job.HostName;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.testing.Snapshots;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code handles --job --hosts}: the collectors' snapshots join the ranks read here; what they could not read is a failure. */
class HandlesAcrossHostsTest {
    @Test
    void remoteRanksAreNamedByHostAndAddressAndTheUnreadOnesAreFailures() {
        CollectorReport sim2 = new CollectorReport("sim2", "j", List.of(), List.of(
                new RankStatus(0, 0, 4242, 1, "sim2", "127.0.0.1:4000", ProcessState.OK, "answered", 10, Snapshots.ring()),
                new RankStatus(1, 0, 4243, 1, "sim2", "127.0.0.1:4001", ProcessState.UNAVAILABLE, "no answer within the deadline", -1, null)),
                List.of(), List.of());
        // this host's collector (a --hosts list that names it): its ranks were read here, not twice
        CollectorReport here = new CollectorReport(HostName.local(), "j", List.of(), List.of(
                new RankStatus(5, 0, 1, 1, HostName.local(), "127.0.0.1:5000", ProcessState.OK, "answered", 10, Snapshots.ring())),
                List.of(), List.of());
        JobSnapshot job = JobTarget.withHosts(new JobSnapshot(List.of(), List.of()),
                new HostCollectors.Round(List.of(sim2, here), Map.of("sim3", "its collector did not answer within the deadline")));
        assertEquals(1, job.ranks().size());
        assertEquals("sim2/127.0.0.1:4000", job.ranks().get(0).address());
        assertEquals(0, job.ranks().get(0).process().rank());
        assertEquals(List.of(new JobSnapshot.Failure("sim2/127.0.0.1:4001",
                        "rank 1 on sim2: UNAVAILABLE (no answer within the deadline)"),
                new JobSnapshot.Failure("host sim3", "host sim3: its collector did not answer within the deadline")), job.failures());
    }
}
