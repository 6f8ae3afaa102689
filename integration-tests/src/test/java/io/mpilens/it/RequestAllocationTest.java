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
 * the agent (MPJ Express: plus the id field the agent adds to its request wrapper). The tag is 1000: a tag (or rank)
 * above 127 is where a boxed {@code Integer} would be a new object.
 */
class RequestAllocationTest {
    private static final Pattern BYTES = Pattern.compile("bytes_per_message=([0-9.]+)");

    private static double bytesPerMessage(Binding b, boolean agent) throws Exception {
        return bytesPerMessage(b, agent, null);
    }

    private static double bytesPerMessage(Binding b, boolean agent, String agentOptions) throws Exception {
        JobSpec.Builder spec = JobSpec.builder(b, 1, b == Binding.OPENMPI ? "io.mpilens.examples.openmpi.MessageRate"
                : "io.mpilens.examples.mpj.MessageRate").classPath(Tours.classPath(b)).appArgs("self", "300000", "3", "1000");
        if (agent) spec.agentJar(Tours.AGENT);
        if (agentOptions != null) spec.agentOptions(agentOptions);
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
        // message each run (Open MPI 96.0; MPJ Express 1,392.0 here). MPJ's request wrapper carries
        // the agent's id field (its key, 8 bytes), so its two wrappers per message are 16 bytes more.
        // A boxed tag would be 32 bytes more than that.
        double slack = b == Binding.OPENMPI ? 1 : 16 + 2;
        assertTrue(with <= without + slack, b + ": " + with + " bytes per message with the agent, " + without
                + " without");
    }

    /**
     * Requests in their wrappers (Open MPI, {@code requestsInWrappers=true}): the only bytes the
     * agent adds are its fields in the request wrapper (call, peer and tag, holder, sequence: 24
     * bytes with the object's alignment), so the two wrappers per message are 48 bytes larger and
     * nothing else is allocated.
     */
    @org.junit.jupiter.api.Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void requestsInWrappersAddOnlyTheirFields() throws Exception {
        double without = bytesPerMessage(Binding.OPENMPI, false);
        double with = bytesPerMessage(Binding.OPENMPI, true, "requestsInWrappers=true");
        assertTrue(with <= without + 48 + 1, "openmpi, requests in wrappers: " + with + " bytes per message with the agent, "
                + without + " without");
        assertTrue(with > without, "the fields are in the wrapper: " + with + " vs " + without);
    }
}
