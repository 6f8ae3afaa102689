package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure inside the agent's interception ({@code failOn=split}, a test hook) never reaches
 * the application: the job runs to the end, the user sees the failure in the agent's health,
 * and only the handle whose interception failed is missing.
 */
class InjectedAgentFailureTest {
    private static final String SOURCE = "HandleTour.java";

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void failureInsideInterceptionIsCountedNotThrownAndOnlyThatHandleIsMissing(@TempDir Path control)
            throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control)
                .agentOptions("requestStacks=true,requestHistory=true,failOn=split").build())) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.OPENMPI));
            try {
                Tours.awaitPause(job, "created");
                List<ProcessSnapshot> ranks = Tours.snapshot(readers, true);
                assertEquals(4, ranks.size(), "4 MPI processes decoded");
                List<Expectation> created = expectations(job, "created");
                for (ProcessSnapshot p : ranks) {
                    int splitLine = splitExpectation(created, p.rank()).line();
                    String health = "rank " + p.rank() + " agent health: " + p.agentHealth().internalErrors()
                            + " errors, last: " + p.agentHealth().lastError();
                    assertTrue(p.agentHealth().internalErrors() >= 1, health);
                    String last = String.valueOf(p.agentHealth().lastError());
                    assertTrue(last.contains("injected failure") && last.contains("split"), health);

                    assertTrue(p.handles().stream().noneMatch(h -> atLine(h, splitLine)),
                            "rank " + p.rank() + ": the split communicator is absent, yet shows:"
                                    + ExpectationChecker.describe(p));
                    Optional<HandleInfo> dup = p.handles().stream()
                            .filter(h -> h.kind() == HandleKind.COMMUNICATOR && "dup".equals(h.creatingCall()))
                            .findFirst();
                    assertTrue(dup.isPresent(), "rank " + p.rank() + ": the dup communicator is tracked:"
                            + ExpectationChecker.describe(p));
                    assertEquals(4, dup.get().size(), "rank " + p.rank() + ": size of the dup of COMM_WORLD");
                }
                List<String> problems = everythingButTheSplit(created, ranks);
                assertTrue(problems.isEmpty(), problems.size() + " differences apart from the split:\n"
                        + String.join("\n", problems));
            } finally {
                Tours.disconnect(readers);
            }
            for (String point : new String[] {"created", "orphans", "released", "finalized"}) job.release(point);
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());

            // the application never noticed: every pause reached, its own answers printed, no exception
            for (String point : new String[] {"created", "orphans", "released", "finalized"}) {
                for (int rank = 0; rank < 4; rank++) {
                    String pause = "MPILENS-PAUSE owner=" + rank + " point=" + point;
                    assertTrue(job.output().contains(pause), "missing '" + pause + "'; output:\n" + job.tail());
                }
            }
            for (int rank = 0; rank < 4; rank++) {
                Expectation split = splitExpectation(expectations(job, "created"), rank);
                assertEquals("tour-split-" + rank % 2, split.values().get("name"), "the name the application set");
                assertEquals("1", split.values().get("refCount"));
                for (String point : new String[] {"orphans", "released"}) {
                    int r = rank;
                    assertTrue(expectations(job, point).stream().anyMatch(e -> e.owner() == r),
                            "rank " + rank + " printed its answers at " + point);
                }
            }
            // the agent's one line of each rank's start-up that the launcher reads (its JDWP port) is not a failure
            List<String> thrown = job.output().stream().filter(l -> !l.startsWith(io.mpilens.api.job.JobRecordLayout.JDWP_LINE))
                    .filter(l -> l.contains("Exception") || l.contains("injected failure") || l.startsWith("mpilens:"))
                    .collect(Collectors.toList());
            assertEquals(List.of(), thrown, "nothing from the agent's failure reached the output");
        }
    }

    private static List<Expectation> expectations(Job job, String point) {
        return job.linesStartingWith("MPILENS-EXPECT").stream().map(Expectation::parse)
                .filter(e -> e.point().equals(point)).collect(Collectors.toList());
    }

    /** The application's own answer about its split communicator: the one it named tour-split-N. */
    private static Expectation splitExpectation(List<Expectation> created, int rank) {
        return created.stream().filter(e -> e.owner() == rank && e.kind().equals("COMMUNICATOR")
                        && e.values().getOrDefault("name", "").startsWith("tour-split-"))
                .findFirst().orElseThrow(() -> new AssertionError("rank " + rank + " printed no split communicator"));
    }

    /** Checks every expectation at "created" that neither is the split nor refers to it. */
    private static List<String> everythingButTheSplit(List<Expectation> created, List<ProcessSnapshot> ranks) {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Expectation e : created) {
            String splitLabel = "line:" + splitExpectation(created, e.owner()).line();
            boolean aboutSplit = e.values().containsKey("name") && e.values().get("name").startsWith("tour-split-")
                    || e.values().values().stream().anyMatch(v -> Arrays.asList(v.split(",")).contains(splitLabel));
            if (aboutSplit) continue;
            ProcessSnapshot p = ranks.stream().filter(r -> r.rank() == e.owner()).findFirst().orElseThrow();
            ExpectationChecker c = new ExpectationChecker(p, SOURCE);
            c.check(e);
            problems.addAll(c.problems());
            checked++;
        }
        if (checked < 4 * 10) problems.add("only " + checked + " expectations checked");
        return problems;
    }

    private static boolean atLine(HandleInfo h, int line) {
        String site = h.createdAt();
        return site != null && site.endsWith("(" + SOURCE + ":" + line + ")");
    }
}
