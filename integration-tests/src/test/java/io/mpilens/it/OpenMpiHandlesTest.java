package io.mpilens.it;

import io.mpilens.headless.launch.Binding;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** 4 ranks of Open MPI's Java bindings under mpirun, each with the agent and JDWP. */
class OpenMpiHandlesTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyFieldMatchesWhatTheBindingAnsweredAndOrphansAreReleasedWithTheirLastHolder(@TempDir Path control)
            throws Exception {
        Tours.runTour(Binding.OPENMPI, control);
    }
}
