package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --job} after a JDWP listener moved: the ranks of one JVM (MPJ Express multicore) whose
 * records still name the old address were read at the new one, so the old address is no failure
 * and nothing is read again.
 */
class JobTargetTest {
    private static final JdwpAddress NOW = JdwpAddress.parse("127.0.0.1:4000");
    private static final JdwpAddress STALE = JdwpAddress.parse("127.0.0.1:3999");

    private static JobSnapshotter.WithAgentless read(int ranks, List<JobSnapshot.Failure> failures) {
        List<JobSnapshot.Rank> out = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            out.add(new JobSnapshot.Rank(NOW.toString(), new ProcessSnapshot(r, 4, 77, "h", "mpj", MpiState.INITIALIZED, 4,
                    new AgentHealth("t", 0, null, 0, true, 0), List.of(), List.of(), 0)));
        }
        return new JobSnapshotter.WithAgentless(new JobSnapshot(out, failures), List.of());
    }

    private static JobTarget.Choice job() {
        JobTarget.Choice c = new JobTarget.Choice();
        c.job = "mc";
        return c;
    }

    @Test
    void aStaleAddressOfRanksReadAtTheirJvmsNewOneIsNoFailure() {
        List<JobSnapshot.Failure> refused = List.of(new JobSnapshot.Failure(STALE.toString(), "refused"));
        // every rank of the JVM was read at NOW; ranks 1 and 2 still named STALE
        JobSnapshotter.WithAgentless after = JobTarget.retryMoved(job(), Map.of(), null, read(4, refused),
                Map.of(0, NOW, 1, STALE, 2, STALE, 3, NOW));
        assertEquals(List.of(), after.job().failures());
        assertEquals(4, after.job().ranks().size());
        // a failure at an address no record names (an --attach address) stays
        JobSnapshotter.WithAgentless other = read(4, List.of(new JobSnapshot.Failure("127.0.0.1:1", "refused")));
        assertSame(other, JobTarget.retryMoved(job(), Map.of(), null, other, Map.of(0, NOW, 1, NOW, 2, NOW, 3, NOW)));
    }
}
