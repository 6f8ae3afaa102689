package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.jdi.AbsentInformationException;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.registry.WrapperLookup;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import io.mpilens.headless.hprof.HprofTargetReader;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wrapper identity to registry handle ({@link RegistryDecoder#wrapperIds()}) on real jobs: at the
 * "orphans" pause of the 4-rank HandleTour, every MPI wrapper a rank's {@code main} frame holds
 * in a local variable {@code v} (created at the line in its local {@code vLine}) maps to the
 * registry handle created at that line, and that handle has the values the binding printed for
 * it: the freed {@code split} (whose Open MPI native handle the binding nulled) maps to its
 * orphan. The heap dump of that moment maps the same wrappers to the same ids.
 */
class WrapperIdentityTourTest {
    /** Values the binding printed at "created" that may have changed by the "orphans" pause. */
    private static final Set<String> CHANGING = Set.of("state", "refCount", "heldBy", "leaked", "complete",
            "attachedTo", "cHandle");

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void openMpiWrappersMapToTheirHandlesLiveAndInAHeapDump(@TempDir Path control, @TempDir Path dumps) throws Exception {
        wrappersMap(Binding.OPENMPI, control, dumps);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjMulticoreWrappersMapToTheirHandlesLiveAndInAHeapDump(@TempDir Path control, @TempDir Path dumps) throws Exception {
        wrappersMap(Binding.MPJ_MULTICORE, control, dumps);
    }

    /**
     * The agent's default options: an MPJ Express request lives in its wrapper, whose sequence
     * field names its entry of the request ring, with the rank of the communicator it was made on
     * (the multicore device runs four ranks in one JVM); a persistent request stays in the shared
     * table, keyed by the id the agent keeps in its wrapper (the tours record request creation
     * stacks, which puts every request there). Requests are found by those fields and checked
     * against what the binding printed for their line; other handles as above.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjMulticoreRequestsMapThroughTheirWrapperFields(@TempDir Path control, @TempDir Path dumps)
            throws Exception {
        requestsByDefault(Binding.MPJ_MULTICORE, control, dumps);
    }

    /** The same with MPJ Express niodev: one JVM per rank. */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjNiodevRequestsMapThroughTheirWrapperFields(@TempDir Path control, @TempDir Path dumps)
            throws Exception {
        requestsByDefault(Binding.MPJ_NIODEV, control, dumps);
    }

    private static void requestsByDefault(Binding b, Path control, Path dumps) throws Exception {
        Tours.atOrphans(b, control, Tours.tour(b, control).agentOptions(null),
                (job, readers) -> checkAtOrphans(b, false, dumps, job, readers),
                WrapperIdentityTourTest::requestIdsAtReleased);
    }

    /**
     * At "released" the tour has waited for its receive (MPJ Express's {@code Wait}) and still
     * holds its persistent request: the finished one's wrapper still names its ring entry, which
     * is done (no live request of the snapshot), the persistent one still carries the id of its
     * live row, and the freed communicator the receive held went with it.
     */
    private static void requestIdsAtReleased(Job job, List<JdiTargetReader> readers) throws InterruptedException {
        int checked = 0;
        for (JdiTargetReader r : readers) {
            // a freed communicator held only by requests in the ring is released by the agent's
            // sweep (every 100 ms) after the last of them completed: until then the snapshot
            // already leaves it out, and the history does not have it yet
            for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; Thread.sleep(100)) {
                r.virtualMachine().suspend();
                try {
                    if (splitReleased(r)) break;
                } catch (Exception e) {
                    throw new AssertionError(e);
                } finally {
                    r.virtualMachine().resume();
                }
            }
            r.virtualMachine().suspend();
            try {
                List<ProcessSnapshot> live = new RegistryDecoder(r).decode();
                WrapperLookup lookup = new WrapperLookup(r);
                for (Held h : heldWrappers(r)) {
                    ProcessSnapshot p = live.stream().filter(x -> x.rank() == h.rank()).findFirst().orElseThrow();
                    long id = lookup.idOf(r.object(h.wrapper()));
                    if (h.variable().equals("split")) {
                        // the freed split's last holder was the receive: its completion (its ring
                        // entry marked done) released the orphan
                        assertTrue(id > 0 && p.handle(id).isEmpty(), "rank " + h.rank() + ": split #" + id
                                + " is still live: " + p.handle(id));
                        assertTrue(p.released().stream().anyMatch(x -> x.id() == id && x.state() == Lifecycle.RELEASED),
                                "rank " + h.rank() + ": split #" + id + " is not in the history of released handles");
                        checked++;
                    }
                    if (!isRequest(h.wrapper())) continue;
                    if (h.variable().equals("recv")) {
                        assertTrue(id >= RegistryDecoder.WRAPPED_REQUEST_ID && p.handle(id).isEmpty(),
                                "rank " + h.rank() + ": the finished receive #" + id + " is still shown: " + p.handle(id));
                        checked++;
                    } else if (h.variable().equals("persistent")) {
                        HandleInfo handle = p.handle(id).orElse(null);
                        assertNotNull(handle, "rank " + h.rank() + ": the persistent request #" + id + " is live");
                        assertTrue(handle.persistent(), handle.toString());
                        checked++;
                    }
                }
                assertFalse(lookup.indexRead());
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                r.virtualMachine().resume();
            }
        }
        assertEquals(12, checked, "split, recv and persistent of 4 ranks");
    }

    /** Whether the freed split this reader's rank holds is in its history of released handles. */
    private static boolean splitReleased(JdiTargetReader r) throws Exception {
        List<ProcessSnapshot> live = new RegistryDecoder(r).decode();
        WrapperLookup lookup = new WrapperLookup(r);
        for (Held h : heldWrappers(r)) {
            if (!h.variable().equals("split")) continue;
            long id = lookup.idOf(r.object(h.wrapper()));
            ProcessSnapshot p = live.stream().filter(x -> x.rank() == h.rank()).findFirst().orElseThrow();
            if (p.released().stream().noneMatch(x -> x.id() == id)) return false;
        }
        return true;
    }

    /** A wrapper held by a local variable of a rank's main frame, and its creation line. */
    private record Held(int rank, String variable, int line, ObjectReference wrapper) {
    }

    private static void wrappersMap(Binding b, Path control, Path dumps) throws Exception {
        Tours.atOrphans(b, control, (job, readers) -> checkAtOrphans(b, true, dumps, job, readers));
    }

    /** {@code requestStacks}: whether the job records request creation stacks (the tours do). */
    private static void checkAtOrphans(Binding b, boolean requestStacks, Path dumps, Job job,
                                       List<JdiTargetReader> readers) throws Exception {
        List<Expectation> printed = new ArrayList<>();
        for (String line : job.linesStartingWith("MPILENS-EXPECT")) printed.add(Expectation.parse(line));
        List<String> problems = new ArrayList<>();
        int mapped = 0;
        int requestsById = 0;
        boolean sawFreedSplit = false;
        for (JdiTargetReader r : readers) {
            r.virtualMachine().suspend();
            try {
                List<ProcessSnapshot> live = new RegistryDecoder(r).decode();
                Map<TargetObject, Long> ids = new RegistryDecoder(r).wrapperIds();
                WrapperLookup lookup = new WrapperLookup(r);
                List<Held> held = heldWrappers(r);
                Map<String, Long> requestAtLine = new HashMap<>(); // "rank:line" -> id, without creation stacks
                for (Held h : held) {
                    if (!requestStacks && b != Binding.OPENMPI && isRequest(h.wrapper())) {
                        requestAtLine.put(h.rank() + ":" + h.line(), lookup.idOf(r.object(h.wrapper())));
                    }
                }
                assertTrue(held.size() >= live.size() * 8, "wrappers held by main frames: " + held);
                for (Held h : held) {
                    ProcessSnapshot p = live.stream().filter(x -> x.rank() == h.rank()).findFirst().orElseThrow();
                    Long id = ids.get(r.object(h.wrapper()));
                    boolean request = isRequest(h.wrapper());
                    if (b == Binding.OPENMPI && request) {
                        assertNull(id, "Open MPI requests are not in the wrapper index");
                        if (!requestStacks && h.variable().equals("recv")) {
                            // in its wrapper: the sequence field names the request ring's entry
                            long bySeq = lookup.idOf(r.object(h.wrapper()));
                            HandleInfo pending = p.handle(bySeq).orElse(null);
                            assertNotNull(pending, "rank " + h.rank() + ": the pending receive maps to #" + bySeq
                                    + ", not a request of the snapshot");
                            assertEquals(HandleKind.REQUEST, pending.kind(), pending.toString());
                            assertFalse(pending.complete(), pending.toString());
                            requestsById++;
                        }
                        continue;
                    }
                    if (request) {
                        // MPJ Express has no native request handles: a request is keyed by the id the
                        // agent stores in the wrapper (started with -javaagent), not indexed by identity
                        assertNull(id, h.variable() + ": an MPJ Express request in the wrapper index");
                        id = lookup.idOf(r.object(h.wrapper()));
                        assertTrue(id > 0, h.variable() + " (line " + h.line() + "): no id in its id field");
                        // with creation stacks, and when persistent, a request goes to the shared
                        // table (0); else it lives in its wrapper, and its field names its ring entry
                        if (requestStacks || h.variable().equals("persistent")) {
                            assertEquals(0, requestTableOf(r, id), h.variable() + " #" + id + ": request table");
                        } else {
                            assertTrue(id >= RegistryDecoder.WRAPPED_REQUEST_ID, h.variable() + " #" + id
                                    + ": not a request of the ring");
                        }
                        requestsById++;
                    } else {
                        assertNotNull(id, "rank " + h.rank() + ": " + h.variable() + " (line " + h.line()
                                + ") is not in the wrapper index");
                        // started with -javaagent: the wrapper carries the same id in a field of its own
                        assertEquals((long) id, new RegistryDecoder(r).wrapperIdField(r.object(h.wrapper())),
                                h.variable() + ": its id field");
                        assertEquals((long) id, lookup.idOf(r.object(h.wrapper())), h.variable() + ": WrapperLookup");
                    }
                    HandleInfo handle = p.handle(id).orElse(null);
                    assertNotNull(handle, "rank " + h.rank() + ": " + h.variable() + " maps to #" + id
                            + ", not a live handle of its rank");
                    if (request) {
                        assertEquals(HandleKind.REQUEST, handle.kind(), h.variable() + " maps to " + handle);
                        assertFalse(handle.hasCHandle(), h.variable() + ": MPJ Express requests have no native handle");
                    }
                    if (!request || requestStacks) {
                        assertTrue(handle.createdAt() != null && handle.createdAt().endsWith("(HandleTour.java:"
                                + h.line() + ")"), h.variable() + " maps to " + handle);
                    }
                    Object nativeHandle = r.fields(r.object(h.wrapper()), List.of("handle")).get("handle");
                    if (b == Binding.OPENMPI && handle.state() == Lifecycle.ACTIVE) {
                        assertEquals(nativeHandle, handle.cHandle(), h.variable() + ": the binding's handle field");
                    }
                    if (h.variable().equals("split") && handle.state() == Lifecycle.FREED) sawFreedSplit = true;
                    mapped += checkPrinted(printed, h, handle, p, requestAtLine, problems);
                }
                assertFalse(lookup.indexRead(), "wrappers with an id field need no read of the wrapper index");
                long pid = live.get(0).pid();
                Path dump = HeapDumpTourTest.jcmdHeapDump(pid, dumps.resolve("pid" + pid + ".hprof"));
                sameInTheDump(r, ids, held, dump, b);
            } finally {
                r.virtualMachine().resume();
            }
        }
        if (!problems.isEmpty()) fail(problems.size() + " differences:\n" + String.join("\n", problems));
        assertTrue(sawFreedSplit, "the freed split maps to its orphan");
        if (b != Binding.OPENMPI) assertTrue(requestsById >= 4, "MPJ Express requests found by their id field: " + requestsById);
        if (b == Binding.OPENMPI && !requestStacks) {
            assertEquals(4, requestsById, "Open MPI pending receives found by their sequence field: " + requestsById);
        }
        assertTrue(mapped >= 4 * 8, "wrappers checked against what the binding printed: " + mapped);
    }

    /**
     * What the binding printed for the handle created at the wrapper's line: at "orphans" all of
     * it, at "created" what cannot have changed since. Returns 1 when something was checked.
     */
    private static int checkPrinted(List<Expectation> printed, Held h, HandleInfo handle, ProcessSnapshot p,
                                    Map<String, Long> requestAtLine, List<String> problems) {
        ExpectationChecker checker = new ExpectationChecker(p, "HandleTour.java");
        int checked = 0;
        for (String point : List.of("orphans", "created")) {
            for (Expectation e : printed) {
                if (e.owner() != h.rank() || e.line() != h.line() || !e.point().equals(point)
                        || !e.kind().equals(handle.kind().name())) {
                    continue;
                }
                Map<String, String> values = new LinkedHashMap<>(e.values());
                if (point.equals("created")) values.keySet().removeAll(CHANGING);
                values.replaceAll((k, v) -> byId(v, h.rank(), requestAtLine));
                checker.check(new Expectation(e.owner(), e.point(), e.line(), e.kind(), values, e.text()), handle);
                checked = 1;
            }
            if (checked == 1) break;
        }
        problems.addAll(checker.problems());
        return checked;
    }

    /**
     * Which request table of the registry holds a row with this id (0: the shared table, under
     * the registry lock; > 0: a thread's own), -1 if none: read as the layout documents it.
     */
    private static int requestTableOf(TargetReader r, long id) {
        TargetObject root = (TargetObject) r.staticField(r.classesNamed(RegistryLayout.ROOT_CLASS).get(0),
                RegistryLayout.ROOT_FIELD);
        Map<String, Object> f = r.fields(root, List.of(RegistryLayout.REQ_IDS, RegistryLayout.REQ_TABLE_COUNT));
        int count = (Integer) f.get(RegistryLayout.REQ_TABLE_COUNT);
        TargetObject[] tables = r.objects((TargetObject) f.get(RegistryLayout.REQ_IDS), 0, count);
        for (int t = 0; t < count; t++) {
            for (long rowId : r.longs(tables[t], 0, r.arrayLength(tables[t]))) {
                if (rowId == id) return t;
            }
        }
        return -1;
    }

    /**
     * The examples name a handle by its creation line ("line:68"); a request has no creation
     * line without creation stacks, so one the rank holds is named by the id its wrapper carries
     * instead ("#958"), which is how the checker then shows it.
     */
    private static String byId(String value, int rank, Map<String, Long> requestAtLine) {
        List<String> out = new ArrayList<>();
        boolean renamed = false;
        for (String part : value.split(",", -1)) {
            Long id = part.startsWith("line:") ? requestAtLine.get(rank + ":" + part.substring(5)) : null;
            out.add(id == null ? part : "#" + id);
            renamed |= id != null;
        }
        if (!renamed) return value;
        out.sort(null); // a list of handles, which the checker shows sorted
        return String.join(",", out);
    }

    /**
     * The heap dump of the same moment (the VM still suspended): every wrapper a main frame holds
     * maps to the same id as live, and every wrapper the dump maps is one the live read mapped to
     * that id (same class, same native handle field).
     */
    private static void sameInTheDump(JdiTargetReader live, Map<TargetObject, Long> liveIds, List<Held> held, Path dump,
                                      Binding b) {
        Map<Long, String> liveById = describeById(live, liveIds);
        try (HprofTargetReader d = HprofTargetReader.open(dump)) {
            Map<Long, String> dumpById = describeById(d, new RegistryDecoder(d).wrapperIds());
            for (Map.Entry<Long, String> e : dumpById.entrySet()) {
                assertEquals(liveById.get(e.getKey()), e.getValue(), "#" + e.getKey() + " in the dump");
            }
            int found = 0;
            for (Held h : held) {
                Long id = liveIds.get(live.object(h.wrapper()));
                if (id == null) continue; // Open MPI requests
                assertEquals(liveById.get(id), dumpById.get(id), h.variable() + " of rank " + h.rank() + " in the dump");
                found++;
            }
            assertTrue(found >= 8, b + ": wrappers found in the dump: " + found);
        }
    }

    /** Each id's wrapper: its class and, when it has one, the binding's native handle field. */
    private static Map<Long, String> describeById(TargetReader r, Map<TargetObject, Long> ids) {
        Map<Long, String> out = new HashMap<>();
        RegistryDecoder decoder = new RegistryDecoder(r);
        for (Map.Entry<TargetObject, Long> e : ids.entrySet()) {
            Object handle = r.fields(e.getKey(), List.of("handle")).get("handle");
            long own = decoder.wrapperIdField(e.getKey());
            // live and in the dump: a wrapper's id field agrees with its index entry; request
            // wrappers (MPJ Express) have no such field
            assertTrue(own == e.getValue() || (own == -1 && e.getKey().typeName().toLowerCase(java.util.Locale.ROOT).endsWith("request")),
                    e.getKey().typeName() + " #" + e.getValue() + " has id field " + own);
            String was = out.put(e.getValue(), e.getKey().typeName() + (handle == null ? "" : " handle=" + handle));
            assertNull(was, "two wrappers map to #" + e.getValue());
        }
        return out;
    }

    /** Locals {@code v} holding an {@code mpi.*} object next to an int local {@code vLine}, per rank's main frame. */
    private static List<Held> heldWrappers(JdiTargetReader r) throws Exception {
        List<Held> out = new ArrayList<>();
        for (ThreadReference t : r.virtualMachine().allThreads()) {
            List<StackFrame> frames;
            try {
                frames = t.frames();
            } catch (com.sun.jdi.IncompatibleThreadStateException e) {
                continue;
            }
            for (StackFrame f : frames) {
                if (!f.location().method().name().equals("main")
                        || !f.location().declaringType().name().endsWith(".HandleTour")) {
                    continue;
                }
                Map<String, Value> locals = new HashMap<>();
                try {
                    for (Map.Entry<LocalVariable, Value> e : f.getValues(f.visibleVariables()).entrySet()) {
                        locals.put(e.getKey().name(), e.getValue());
                    }
                } catch (AbsentInformationException e) {
                    throw new AssertionError("HandleTour was compiled without local variable tables", e);
                }
                int rank = ((IntegerValue) locals.get("rank")).value();
                for (Map.Entry<String, Value> e : locals.entrySet()) {
                    if (!(e.getValue() instanceof ObjectReference o) || !o.referenceType().name().startsWith("mpi.")) continue;
                    if (!(locals.get(e.getKey() + "Line") instanceof IntegerValue line)) continue;
                    out.add(new Held(rank, e.getKey(), line.value(), o));
                }
            }
        }
        return out;
    }

    private static boolean isRequest(ObjectReference o) {
        for (com.sun.jdi.ClassType c = (com.sun.jdi.ClassType) o.referenceType(); c != null; c = c.superclass()) {
            if (c.name().equals("mpi.Request")) return true;
        }
        return false;
    }
}
