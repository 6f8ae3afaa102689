package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hidden-handle rule on MPJ Express's collectives, which are Java code in the binding: each
 * {@code Reduce} with a predefined operation makes an {@code Op} worker of its own ({@code
 * SumDouble}, {@code MaxInt}, …). Those are the binding's temporaries: the agent shows none of
 * them, live or released, while every handle the application made is there with its creation
 * site — also the 40 datatypes made on one line, whose site the agent finds once. And {@code
 * Prequest.Start}, which makes a request with {@code Isend} each time, shows only the persistent one.
 */
class MpjCollectiveTemporariesTest {
    private static final String MAIN = "io.mpilens.examples.mpj.CollectiveTemporaries";
    private static final int NP = 2;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theBindingsOwnOperationsAreNotShownAndTheApplicationsHandlesKeepTheirCreationSites(@TempDir Path control)
            throws Exception {
        Files.createDirectories(control);
        JobSpec spec = JobSpec.builder(Binding.MPJ_MULTICORE, NP, MAIN).classPath(Tours.classPath(Binding.MPJ_MULTICORE))
                .agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        try (Job job = Job.launch(spec)) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.MPJ_MULTICORE));
            try {
                List<String> sites = job.awaitLines(l -> l.startsWith("MPILENS-SITES "), NP, Tours.START);
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=collectives"), NP, Tours.START);
                List<ProcessSnapshot> ranks = Tours.snapshot(readers, true);
                assertEquals(NP, ranks.size(), "both MPI processes decoded");
                for (String line : sites) {
                    Map<String, String> f = fields(line);
                    int rank = Integer.parseInt(f.get("owner"));
                    ProcessSnapshot p = ranks.stream().filter(r -> r.rank() == rank).findFirst().orElseThrow();
                    checkRank(p, f);
                }
            } finally {
                Tours.disconnect(readers);
            }
            job.release("collectives");
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
        }
    }

    private static void checkRank(ProcessSnapshot p, Map<String, String> f) {
        String who = "rank " + p.rank();
        assertEquals(0, p.agentHealth().internalErrors(), who + ": " + p.agentHealth().lastError());
        List<HandleInfo> all = Stream.concat(p.handles().stream(), p.released().stream()).collect(Collectors.toList());
        // the binding's workers: Op objects of a class other than mpi.Op (SumDouble, MaxInt, SumInt, …)
        List<HandleInfo> workers = all.stream().filter(h -> h.kind() == HandleKind.OP && !h.predefined())
                .filter(h -> !"mpi.Op".equals(h.bindingClass())).collect(Collectors.toList());
        assertEquals(List.of(), workers, who + ": no Op worker of the binding's collectives, live or released");
        List<HandleInfo> ops = p.handles().stream().filter(h -> h.kind() == HandleKind.OP && !h.predefined())
                .collect(Collectors.toList());
        assertEquals(1, ops.size(), who + ": the application's one operation: " + ops);
        assertEquals("CollectiveTemporaries.java:" + f.get("op"), site(ops.get(0)), who + ": " + ops.get(0));

        String typesSite = "CollectiveTemporaries.java:" + f.get("types");
        List<HandleInfo> types = p.handles().stream().filter(h -> h.kind() == HandleKind.DATATYPE && !h.predefined())
                .collect(Collectors.toList());
        List<HandleInfo> fromLoop = types.stream().filter(h -> typesSite.equals(site(h))).collect(Collectors.toList());
        assertEquals(Integer.parseInt(f.get("count")), fromLoop.size(), who + ": every datatype of the loop, at its line: "
                + types.stream().map(MpjCollectiveTemporariesTest::site).collect(Collectors.toList()));
        // one call site, many handles: the kept stack names the caller below it too
        for (HandleInfo h : fromLoop) {
            assertTrue(h.creationStack().size() >= 1 && h.creationStack().get(0).contains(".main("), who + ": " + h.creationStack());
        }
        List<HandleInfo> other = types.stream().filter(h -> ("CollectiveTemporaries.java:" + f.get("other")).equals(site(h)))
                .collect(Collectors.toList());
        assertEquals(1, other.size(), who + ": the datatype made on another line keeps its own site: " + types);
        assertEquals("Vector", other.get(0).creatingCall(), who + ": " + other.get(0));
        assertEquals(types.size(), fromLoop.size() + 1, who + ": no other datatype than the application's: " + types);
        // the two persistent requests, and nothing of the collectives' sends and receives or of Start's Isend and Irecv
        List<HandleInfo> requests = p.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST && !h.predefined())
                .collect(Collectors.toList());
        // (a request's creation stack is recorded with the requestStacks option only)
        assertEquals(List.of("Recv_init", "Send_init"),
                requests.stream().map(HandleInfo::creatingCall).sorted().collect(Collectors.toList()),
                who + ": only the application's persistent requests: " + requests);
        for (HandleInfo r : requests) assertTrue(r.persistent(), who + ": " + r);
    }

    /** "File.java:LINE" of a handle's creation site (its first frame), or null. */
    private static String site(HandleInfo h) {
        String at = h.createdAt();
        if (at == null) return null;
        int open = at.lastIndexOf('(');
        return open < 0 ? at : at.substring(open + 1, at.length() - 1);
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> out = new HashMap<>();
        for (String part : line.substring(line.indexOf(' ') + 1).trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) out.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return out;
    }
}
