package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * "No allocation on the hot path", checked on real message loops: the example {@code
 * MessageRate} (one rank sending 8-byte messages to itself with iRecv/iSend/waitAll) prints
 * what its thread allocated per message in its last repetition, by the JVM's own count (not a
 * timing). With the agent tracking every request it must be what the binding allocates without
 * the agent, plus the fields the agent adds to the request wrapper. The tag is 1000: a tag (or rank)
 * above 127 is where a boxed {@code Integer} would be a new object.
 */
class RequestAllocationTest {
    private static final Pattern BYTES = Pattern.compile("bytes_per_message=([0-9.]+)");

    private static double bytesPerMessage(Binding b, boolean agent) throws Exception {
        JobSpec.Builder spec = JobSpec.builder(b, 1, b == Binding.OPENMPI ? "io.mpilens.examples.openmpi.MessageRate"
                : "io.mpilens.examples.mpj.MessageRate").classPath(Tours.classPath(b)).appArgs("self", "300000", "3", "1000");
        if (agent) spec.agentJar(Tours.AGENT);
        try (Job job = Job.launch(spec.build())) {
            String line = job.awaitLine(l -> BYTES.matcher(l).find(), Duration.ofMinutes(2));
            Matcher m = BYTES.matcher(line);
            assertTrue(m.find(), line);
            return Double.parseDouble(m.group(1));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Binding.class, names = {"OPENMPI", "MPJ_MULTICORE"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theAgentAllocatesNothingPerRequest(Binding b) throws Exception {
        double without = bytesPerMessage(b, false);
        double with = bytesPerMessage(b, true);
        // MessageRate counts its last repetition, after the others warmed it up: the same bytes per
        // message each run (Open MPI 96.0; MPJ Express 1,392.0 here). Each request wrapper carries
        // the agent's fields (8 bytes each, or less where the object's alignment had room): its
        // creation sequence (its slot in the request ring, allocated once), and on MPJ Express also
        // the id its persistent requests are keyed by (the field is on the root request class), so
        // the two wrappers per message are at most 16 (Open MPI) or 32 (MPJ) bytes more. A boxed
        // tag would be 32 bytes more than that.
        double slack = (b == Binding.OPENMPI ? 16 : 32) + 2;
        assertTrue(with <= without + slack, b + ": " + with + " bytes per message with the agent, " + without
                + " without");
    }
}
