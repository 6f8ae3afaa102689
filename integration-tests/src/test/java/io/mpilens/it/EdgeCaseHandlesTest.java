package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The results that killed jobs when the agent asked MPI about them (Open MPI, default
 * MPI_ERRORS_ARE_FATAL): null communicators are not shown as handles, distributed graphs show
 * their kind and this rank's neighbours (from the adjacent constructor's arguments, from the
 * neighbours getter for the general one and a dup), a nonblocking dup its size and members, an
 * empty group size 0 — and the agent's health stays clean through MPI_Finalize.
 */
class EdgeCaseHandlesTest {
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void nullResultsAreNoHandlesAndDistributedGraphsShowTheirNeighbours(@TempDir Path control) throws Exception {
        Files.createDirectories(control);
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.EdgeCases")
                .classPath(Tours.classPath(Binding.OPENMPI)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        try (Job job = Job.launch(spec)) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.OPENMPI));
            try {
                Tours.awaitPause(job, "created");
                List<ProcessSnapshot> ranks = Tours.snapshot(readers, true);
                assertEquals(4, ranks.size(), "4 MPI processes decoded");
                List<String> problems = new ArrayList<>();
                int checked = 0;
                for (String line : job.linesStartingWith("MPILENS-EXPECT")) {
                    Expectation e = Expectation.parse(line);
                    ProcessSnapshot p = ranks.stream().filter(r -> r.rank() == e.owner()).findFirst().orElseThrow();
                    ExpectationChecker c = new ExpectationChecker(p, "EdgeCases.java");
                    c.check(e);
                    problems.addAll(c.problems());
                    checked++;
                }
                assertEquals(4 * 10, checked, "expectations printed by the 4 ranks");
                if (!problems.isEmpty()) fail(problems.size() + " differences:\n" + String.join("\n", problems));
                job.release("created");
                Tours.awaitPause(job, "end");
                for (ProcessSnapshot p : Tours.snapshot(readers, false)) {
                    assertEquals(0, p.agentHealth().internalErrors(), "rank " + p.rank() + " agent errors, last: "
                            + p.agentHealth().lastError());
                    assertEquals(0, p.agentHealth().untrackedEvents(), "rank " + p.rank() + " untracked events");
                }
            } finally {
                Tours.disconnect(readers);
            }
            job.release("end");
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
            assertTrue(job.linesStartingWith("rank ").size() >= 4, "every rank printed its line:\n" + job.tail());
        }
    }
}
