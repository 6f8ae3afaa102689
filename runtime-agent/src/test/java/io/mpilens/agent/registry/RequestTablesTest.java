package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Requests with a native handle live in per-thread request tables written without a lock:
 * what happens when another thread completes them, when their thread dies, when a table fills
 * up, and what a debugger reading a table while it changes sees. Decoded as a debugger decodes.
 */
class RequestTablesTest {
    private HandleRegistry registry;
    private ReflectiveTargetReader reader;
    private Object comm;
    private long commId;

    @BeforeEach
    void freshRegistry() {
        freshRegistry(4); // thread tables start with 4 rows: growth is exercised
    }

    private void freshRegistry(int tableRows) {
        registry = new HandleRegistry(Math.max(tableRows, 16), 16, tableRows);
        registry.configure("test", "openmpi", false);
        RegistryLifecycleTest.Root.INSTANCE = registry;
        reader = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS, RegistryLifecycleTest.Root.class));
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 0, 2);
        comm = new Object();
        RowSpec c = new RowSpec(HandleKind.COMMUNICATOR);
        c.proc = proc;
        c.name = "split";
        commId = registry.add(comm, c);
    }

    static RequestTable[] tables(HandleRegistry registry) throws ReflectiveOperationException {
        Field f = RequestRouting.class.getDeclaredField("tables");
        f.setAccessible(true);
        Field n = HandleRegistry.class.getDeclaredField("reqTableCount");
        n.setAccessible(true);
        return java.util.Arrays.copyOf((RequestTable[]) f.get(registry.requests()), n.getInt(registry));
    }

    private ProcessSnapshot snapshot() {
        List<ProcessSnapshot> all = new RegistryDecoder(reader).decode();
        assertEquals(1, all.size());
        return all.get(0);
    }

    private List<HandleInfo> requests(ProcessSnapshot s) {
        return s.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).collect(Collectors.toList());
    }

    private HandleInfo communicator(ProcessSnapshot s) {
        return s.handle(commId).orElseThrow();
    }

    private void send(long key) {
        registry.addRequest(new Object(), key, 0, "mpi.Request", "iSend", 1, 5, comm, false);
    }

    /** Runs {@code body} on a new thread and waits for it to end. */
    private static void onOtherThread(Runnable body) throws InterruptedException {
        Thread t = new Thread(body, "rank-thread");
        t.start();
        t.join();
    }

    @Test
    void requestsOfAThreadGoIntoItsOwnTableAndRowsAreReused() throws Exception {
        for (long i = 1; i <= 10_000; i++) {
            send(0x7f00_0000L + i * 16);
            registry.requestCompleted(null, 0x7f00_0000L + i * 16);
        }
        send(0x10);
        RequestTable[] tables = tables(registry);
        assertEquals(2, tables.length, "the shared table and this thread's");
        assertEquals(0, tables[0].reqHighWater, "nothing went through the shared table");
        assertFalse(tables[1].keyed, "a message loop keeps its table a ring");
        assertEquals(4, tables[1].reqId.length, "completed requests' rows are taken again: the ring did not grow");
        HandleInfo r = requests(snapshot()).get(0);
        assertEquals(0x10, r.cHandle());
        assertEquals(commId, r.communicator());
        assertEquals(1, communicator(snapshot()).refCount());
    }

    /**
     * The owner's hot path checks its cached communicator slot against the registry's id column
     * without the lock ({@link RequestRouting#mainIds}); when the registry grows its columns, the
     * check must see the new column, where a communicator released since then has id 0.
     */
    @Test
    void afterTheRegistryGrowsAReleasedCommunicatorIsNoLongerTheOwnersCachedOne() throws Exception {
        send(0x10); // caches the communicator's slot in this thread's table
        registry.requestCompleted(null, 0x10);
        for (int i = 0; i < 20; i++) { // more rows than the 16 the registry started with: new columns
            RowSpec g = new RowSpec(HandleKind.GROUP);
            g.name = "group" + i;
            registry.add(new Object(), g);
        }
        registry.freed(comm); // nothing holds it: released, its slot's id is 0 in the new column
        assertTrue(snapshot().handle(commId).isEmpty());
        send(0x20); // on the released communicator's wrapper
        HandleInfo r = requests(snapshot()).get(0);
        assertEquals(0x20, r.cHandle());
        assertEquals(0, r.communicator(), "not the released communicator " + commId);
    }

    @Test
    void requestCompletedByAnotherThreadIsGoneAtOnceAndItsRowIsReusedByTheOwner() throws Exception {
        CountDownLatch created = new CountDownLatch(1);
        CountDownLatch completed = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            try {
                send(0xA0);
                send(0xB0);
                created.countDown();
                completed.await();
                checked.await();
                send(0xC0); // takes in the mark: the completed row is released and reused
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        owner.start();
        created.await();
        registry.freed(comm); // the communicator is an orphan of the two pending requests
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state());
        assertEquals(2, communicator(snapshot()).refCount());

        registry.requestCompleted(null, 0xA0); // this thread is not the owner: the row is marked
        completed.countDown();
        RequestTable table = tables(registry)[1];
        assertEquals(1, table.doneCount());
        ProcessSnapshot s = snapshot();
        assertEquals(List.of(0xB0L), requests(s).stream().map(HandleInfo::cHandle).collect(Collectors.toList()));
        assertEquals(1, communicator(s).refCount());
        assertArrayEquals(new long[] {requests(s).get(0).id()}, communicator(s).heldBy());

        checked.countDown();
        owner.join();
        assertEquals(0, table.doneCount());
        assertEquals(2, table.pending, "the owner released the marked row");
        assertEquals(0, table.reqId[0], "0xA0's row is empty");
        assertEquals(Set.of(0xB0L, 0xC0L), requests(snapshot()).stream().map(HandleInfo::cHandle).collect(Collectors.toSet()));

        registry.requestCompleted(null, 0xB0);
        registry.requestCompleted(null, 0xC0);
        ProcessSnapshot end = snapshot();
        assertTrue(requests(end).isEmpty());
        assertTrue(end.handle(commId).isEmpty(), "the orphan went with its last request");
        assertTrue(end.released().stream().anyMatch(h -> h.id() == commId));
    }

    @Test
    void pendingRequestsOfADeadThreadStillCountAndItsTableIsAdopted() throws Exception {
        onOtherThread(() -> {
            for (long k = 1; k <= 3; k++) send(k << 8);
        });
        ProcessSnapshot s = snapshot();
        assertEquals(3, requests(s).size(), "requests of a thread that ended are still pending in MPI");
        assertEquals(3, communicator(s).refCount());
        registry.freed(comm);
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state());

        registry.requestCompleted(null, 1 << 8); // owner dead: released by this thread directly
        RequestTable dead = tables(registry)[1];
        assertEquals(0, dead.doneCount());
        assertEquals(2, requests(snapshot()).size());

        onOtherThread(() -> registry.addRequest(new Object(), 0xF00, 0, "mpi.Request", "iRecv", 0, 0, null, false));
        RequestTable[] tables = tables(registry);
        assertEquals(2, tables.length, "the next thread took over the dead thread's table");
        assertEquals(3, tables[1].pending, "with its two pending rows");
        assertEquals(3, requests(snapshot()).size());
        assertEquals(2, communicator(snapshot()).refCount());

        for (long k : new long[] {2 << 8, 3 << 8, 0xF00}) registry.requestCompleted(null, k);
        assertTrue(snapshot().handle(commId).isEmpty(), "released with the last request of the dead threads");
    }

    @Test
    void tablesGrowPastTheirFirstSizeAndIdsStayUniqueAcrossThreadsAndIdBlocks() throws Exception {
        int perThread = 3 * RequestTable.ID_BLOCK + 17;
        Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++) {
            long base = (t + 1L) << 32;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) send(base + i * 8L);
            });
            threads[t].start();
        }
        for (Thread t : threads) t.join();
        ProcessSnapshot s = snapshot();
        List<HandleInfo> rs = requests(s);
        assertEquals(threads.length * perThread, rs.size());
        Set<Long> ids = new HashSet<>();
        for (HandleInfo r : rs) assertTrue(ids.add(r.id()), "duplicate id " + r.id());
        assertFalse(ids.contains(commId));
        assertEquals(threads.length * perThread, communicator(s).refCount());
        assertEquals(0, s.tornRows());
    }

    /**
     * As if the VM stopped the owner while it filled a free row of its table with a request of
     * native handle {@code key}: the fields are written, the id (stored last) is not.
     */
    static void stopMidWrite(HandleRegistry registry, long key) throws ReflectiveOperationException {
        RequestTable own = tables(registry)[1];
        int r = own.take();
        own.counters[RegistryLayout.REQ_COUNT_WRITES]++; // odd
        own.reqs[r * RegistryLayout.REQ_STRIDE + RegistryLayout.REQ_KEY] = key;
        own.reqs[r * RegistryLayout.REQ_STRIDE + RegistryLayout.REQ_PEER_TAG] = 0x0000_0003_0000_0004L;
    }

    @Test
    void rowCaughtMidWriteIsNotShownAndTheOthersDecode() throws Exception {
        send(0x10);
        send(0x20);
        stopMidWrite(registry, 0x30);
        ProcessSnapshot s = snapshot();
        assertEquals(0, s.tornRows());
        assertEquals(List.of(0x10L, 0x20L), requests(s).stream().map(HandleInfo::cHandle).sorted().collect(Collectors.toList()));
        assertEquals(2, communicator(s).refCount());
    }

    @Test
    void ringTableBecomesKeyedWhenManyArePendingAndFindsEveryRequestInAnyOrder() throws Exception {
        int n = 2 * RequestTable.RING_MAX + 3;
        for (long k = 1; k <= n; k++) send(k * 8);
        RequestTable own = tables(registry)[1];
        assertTrue(own.keyed, "more than " + RequestTable.RING_MAX / 2 + " pending requests: keyed");
        assertEquals(n, requests(snapshot()).size());
        // completed in an order neither newest-first nor oldest-first
        for (long k = 1; k <= n; k += 2) registry.requestCompleted(null, k * 8);
        for (long k = (n / 2) * 2; k >= 2; k -= 2) registry.requestCompleted(null, k * 8);
        assertTrue(requests(snapshot()).isEmpty(), "every completion found its request");
    }

    @Test
    void ringFindsRequestsWhoseIndexEntryWasOverwritten() throws Exception {
        // 12 pending requests in a ring of 32 rows with a 64-entry index, all in one entry
        freshRegistry(32);
        long[] keys = new long[12];
        int entry = LongSlotMap.mix(0x7f00_0000L) & 63;
        for (long k = 0x7f00_0000L, i = 0; i < keys.length; k += 16) { // all in one index entry
            if ((LongSlotMap.mix(k) & 63) == entry) keys[(int) i++] = k;
        }
        for (long k : keys) send(k);
        RequestTable own = tables(registry)[1];
        assertFalse(own.keyed);
        for (long k : keys) assertTrue(own.find(k) >= 0, "request " + Long.toHexString(k) + " is found");
        for (int i = 0; i < keys.length; i += 3) registry.requestCompleted(null, keys[i]);
        assertEquals(8, requests(snapshot()).size());
        assertEquals(8, communicator(snapshot()).refCount());
        for (long k : keys) registry.requestCompleted(null, k);
        assertTrue(requests(snapshot()).isEmpty());
    }

    @Test
    void handleGivenOutAgainUnnoticedByTheRingIsResolvedWhenTheTableBecomesKeyed() throws Exception {
        freshRegistry(32); // a ring of 32 rows, an index of 64 entries
        long a = 0x7f00_0000L;
        int entry = LongSlotMap.mix(a) & 63;
        long b = a + 16;
        while ((LongSlotMap.mix(b) & 63) != entry) b += 16;
        registry.addRequest(new Object(), a, 0, "mpi.Request", "iSend", 1, 5, comm, false); // its completion is missed
        send(b); // overwrites a's index entry
        registry.addRequest(new Object(), a, 0, "mpi.Request", "iRecv", 1, 5, comm, false); // MPI gave a out again
        assertEquals(2, requests(snapshot()).stream().filter(r -> r.cHandle() == a).count(),
                "the ring did not see the reuse: its index entry was b's");
        for (long k = 1; k <= RequestTable.RING_MAX; k++) send(k * 8 + 0x1000_0000L);
        assertTrue(tables(registry)[1].keyed);
        List<HandleInfo> withA = requests(snapshot()).stream().filter(r -> r.cHandle() == a).collect(Collectors.toList());
        assertEquals(1, withA.size(), "keyed, the older request with handle a is known finished");
        assertEquals("iRecv", withA.get(0).creatingCall());
    }

    @Test
    void ringThatWrappedAndGrewStillFindsItsOlderRows() throws Exception {
        freshRegistry(8); // a ring of 8 rows
        for (long k = 1; k <= 7; k++) { // rows 0-6 used once: the next request takes the last row
            send(k * 8);
            registry.requestCompleted(null, k * 8);
        }
        long x = 0x7f00_0000L;
        send(x); // row 7
        send(0x100); // row 0, the ring wrapped
        send(0x200);
        send(0x300);
        long v = x + 16; // shares x's entry in the 32-entry index the ring has after growing
        while ((LongSlotMap.mix(v) & 31) != (LongSlotMap.mix(x) & 31)) v += 16;
        send(v); // 5 pending in 8 rows: the ring grows to 16 first
        RequestTable own = tables(registry)[1];
        assertEquals(16, own.reqId.length);
        assertFalse(own.keyed);
        registry.requestCompleted(null, x); // not the newest, not in the index: found by the scan
        assertTrue(requests(snapshot()).stream().noneMatch(r -> r.cHandle() == x));
        assertEquals(4, requests(snapshot()).size());
    }

    /**
     * The owner creates and completes requests in random orders (newest first, oldest first, any),
     * reusing handles the way MPI's request pool does, sometimes with hundreds pending (the ring
     * grows and becomes keyed), while another thread decodes the registry as a debugger reading
     * a running VM does. Every decoded request must be one that was really created, and at the end
     * the registry must show exactly the requests the model says are pending.
     */
    @Test
    void randomOrdersMatchAModelWhileADebuggerReadsConcurrently() throws Exception {
        long seed = Long.getLong("mpilens.test.seed", System.nanoTime());
        java.util.Random rnd = new java.util.Random(seed);
        String why = "seed " + seed;
        java.util.ArrayList<Long> pending = new java.util.ArrayList<>();
        java.util.ArrayDeque<Long> freeKeys = new java.util.ArrayDeque<>();
        java.util.concurrent.atomic.AtomicLong fresh = new java.util.concurrent.atomic.AtomicLong(0x7f00_0000L);
        Throwable[] readerFailure = new Throwable[1];
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Thread debugger = new Thread(() -> {
            try {
                ReflectiveTargetReader live = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS,
                        RegistryLifecycleTest.Root.class));
                while (!done.get()) {
                    for (HandleInfo r : new RegistryDecoder(live).decode().get(0).handles()) {
                        if (r.kind() != HandleKind.REQUEST) continue;
                        assertEquals(0, r.cHandle() % 8, why + ": a row mixed of two requests");
                        assertTrue(r.cHandle() > 0x7f00_0000L && r.cHandle() <= fresh.get(), why);
                        assertEquals(commId, r.communicator(), why);
                        assertEquals("iSend", r.creatingCall(), why);
                    }
                    reads.incrementAndGet();
                }
            } catch (Throwable t) {
                readerFailure[0] = t;
            }
        }, "debugger");
        debugger.start();
        try {
            for (int step = 0; step < 40_000; step++) {
                if (step % 10_000 == 5_000) awaitAnotherRead(reads, readerFailure);
                // a message loop, a ring grown to 128 rows, a message loop again, then keyed
                int target = new int[] {3, 60, 3, 300}[step / 10_000];
                boolean create = pending.isEmpty() || rnd.nextInt(2 * target) >= pending.size();
                if (create) {
                    long k = !freeKeys.isEmpty() && rnd.nextBoolean() ? freeKeys.pop() : fresh.addAndGet(8);
                    send(k);
                    pending.add(k);
                } else {
                    int how = rnd.nextInt(3);
                    int i = how == 0 ? pending.size() - 1 : how == 1 ? 0 : rnd.nextInt(pending.size());
                    long k = pending.remove(i);
                    registry.requestCompleted(null, k);
                    freeKeys.push(k);
                }
                if (step == 19_999) {
                    RequestTable own = tables(registry)[1];
                    assertFalse(own.keyed, why + ": about 60 pending still fit a ring");
                    assertTrue(own.reqId.length >= 64, why + ": the ring grew, " + own.reqId.length);
                }
            }
            assertTrue(tables(registry)[1].keyed, why + ": about 300 pending made it keyed");
        } finally {
            done.set(true);
            debugger.join();
        }
        if (readerFailure[0] != null) throw new AssertionError(why, readerFailure[0]);
        assertTrue(reads.get() >= 4, why + ": the debugger read while the owner was in each phase");
        ProcessSnapshot s = snapshot();
        assertEquals(new HashSet<>(pending), requests(s).stream().map(HandleInfo::cHandle).collect(Collectors.toSet()), why);
        assertEquals(pending.size(), requests(s).size(), why);
        assertEquals(pending.size(), communicator(s).refCount(), why);
    }

    /** Lets the debugger thread finish a read while the owner is mid-phase, however fast the owner runs. */
    private static void awaitAnotherRead(java.util.concurrent.atomic.AtomicInteger reads, Throwable[] readerFailure)
            throws InterruptedException {
        int seen = reads.get();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (reads.get() <= seen + 1 && readerFailure[0] == null && System.nanoTime() < deadline) Thread.sleep(1);
    }

    @Test
    void idsAreReadBeforeAndAfterTheRows() throws Exception {
        for (long k = 1; k <= 10; k++) send(k * 8);
        RequestTable own = tables(registry)[1];
        snapshot();
        assertEquals(1, reader.arraysRead.stream().filter(a -> a == own.reqs).count());
        assertEquals(2, reader.arraysRead.stream().filter(a -> a == own.reqId).count(),
                "a table's writer bumps no counter per row: its ids prove its rows consistent");
    }

    @Test
    void tableWrittenWhileReadFallsBackToRowStampsAndShowsNoGarbage() throws Exception {
        for (long k = 1; k <= 50; k++) send(k * 8);
        RequestTable own = tables(registry)[1];
        long[] next = {1000};
        // the owner keeps completing and creating requests while the debugger reads its table
        reader.beforeArrayRead = a -> {
            if (a == own.reqs || a == own.reqId) {
                registry.requestCompleted(null, (next[0] - 999) * 8);
                send(next[0]++ * 8);
            }
        };
        ProcessSnapshot s = snapshot();
        reader.beforeArrayRead = a -> { };
        assertTrue(reader.arraysRead.stream().filter(a -> a == own.reqId).count() >= 2,
                "the ids of a changing table are read before and after its rows");
        for (HandleInfo r : requests(s)) {
            assertEquals(0, r.cHandle() % 8, "a row mixed of two requests would show a foreign handle");
            assertEquals(commId, r.communicator());
            assertEquals("iSend", r.creatingCall());
        }
        assertEquals(50, requests(snapshot()).size());
    }

    @Test
    void requestCreatedAfterTheRootWasReadShowsTheCallItsRowNames() throws Exception {
        send(8);
        RequestTable own = tables(registry)[1];
        boolean[] once = {true};
        // the root (and its string count) is read first; then, before the table's rows are read,
        // the owner makes a request with a call name never seen before
        reader.beforeArrayRead = a -> {
            if (a == own.counters && once[0]) {
                once[0] = false;
                registry.addRequest(new Object(), 16, 0, "mpi.Request", "iBarrier", 1, 5, comm, false);
            }
        };
        ProcessSnapshot s = snapshot();
        reader.beforeArrayRead = a -> { };
        assertFalse(once[0], "the hook ran during the read");
        HandleInfo late = requests(s).stream().filter(r -> r.cHandle() == 16).findFirst().orElseThrow();
        assertEquals("iBarrier", late.creatingCall());
        assertEquals("mpi.Request", late.bindingClass());
    }

    @Test
    void orphanWhoseLastRequestEndedUnnoticedIsReleasedByTheReapersSweep() throws Exception {
        send(0x10);
        registry.freed(comm);
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state());
        // the owner's completion raced with the free and did not see the orphan
        RequestTable own = tables(registry)[1];
        own.keys.remove(0x10);
        own.clear(0);
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state(), "nothing released it yet");
        java.lang.reflect.Method sweep = HandleRegistry.class.getDeclaredMethod("sweepOrphans");
        sweep.setAccessible(true);
        sweep.invoke(registry); // what the reaper thread runs every 100 ms while orphans wait
        assertTrue(snapshot().handle(commId).isEmpty());
        assertTrue(snapshot().released().stream().anyMatch(h -> h.id() == commId));
    }

    @Test
    void completionByAnotherThreadOfAnUnknownHandleChangesNothing() throws Exception {
        send(0x10);
        onOtherThread(() -> registry.requestCompleted(null, 0x999));
        assertEquals(1, requests(snapshot()).size());
        assertEquals(0, tables(registry)[1].doneCount());
    }

    @Test
    void requestStacksOptionKeepsRequestsInTheSharedTableWithTheirStack() throws Exception {
        registry.configure("test", "openmpi", false, true);
        registry.addRequest(new Object(), 0x40, 0, "mpi.Request", "iRecv", 0, 1, comm, false);
        registry.setStack(null, 0x40, new String[] {"App.main(App.java:12)"});
        assertEquals(1, tables(registry).length, "no thread table");
        HandleInfo r = requests(snapshot()).get(0);
        assertEquals("App.main(App.java:12)", r.createdAt());
        registry.requestCompleted(null, 0x40);
        assertTrue(requests(snapshot()).isEmpty());
    }

    /** MPJ Express: a request without a native handle, keyed by the id the registry gives it. */
    private long sendById(Object wrapper) {
        return registry.addRequest(wrapper, RequestRouting.KEY_IS_ID, 0, "mpi.Request", "Isend", 1, 5, comm, false);
    }

    @Test
    void requestsKeyedByTheirOwnIdUseTheThreadTableAndNeitherAWrapperIndexEntryNorACHandle() throws Exception {
        for (int i = 0; i < 10_000; i++) {
            long id = sendById(new Object());
            assertTrue(id > 0);
            registry.requestCompleted(null, id);
        }
        Object wrapper = new Object();
        long id = sendById(wrapper);
        RequestTable[] tables = tables(registry);
        assertEquals(2, tables.length, "the shared table and this thread's");
        assertEquals(0, tables[0].reqHighWater, "nothing went through the shared table");
        assertEquals(4, tables[1].reqId.length, "a message loop by id reuses its rows like one by native handle");
        ProcessSnapshot s = snapshot();
        HandleInfo r = requests(s).get(0);
        assertEquals(id, r.id(), "the key handed back is the request's id");
        assertFalse(r.hasCHandle(), "an id is not a native handle");
        assertEquals(commId, r.communicator());
        assertEquals(1, r.peer());
        assertEquals(5, r.tag());
        assertEquals("Isend", r.creatingCall());
        assertEquals(Set.of(commId), new HashSet<>(new RegistryDecoder(reader).wrapperIds().values()),
                "no request wrapper in the wrapper index");
        assertEquals(1, communicator(s).refCount());

        long[] other = new long[1];
        onOtherThread(() -> other[0] = sendById(new Object()));
        assertNotEquals(id, other[0], "ids are unique across threads");
        registry.freed(comm); // an orphan of the two pending requests, released when the last completes
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state());
        assertEquals(2, communicator(snapshot()).refCount());
        registry.requestCompleted(wrapper, id);
        assertEquals(List.of(other[0]), requests(snapshot()).stream().map(HandleInfo::id).collect(Collectors.toList()));
        assertEquals(Lifecycle.FREED, communicator(snapshot()).state(), "the other thread's request still holds it");
        registry.requestCompleted(null, other[0]); // the thread that created it ended: its table is written here
        ProcessSnapshot end = snapshot();
        assertTrue(requests(end).isEmpty());
        assertTrue(end.handle(commId).isEmpty(), "the orphan went with its last request");
    }

    @Test
    void requestKeyedByIdCompletedByAnotherThreadWhileItsOwnerLives() throws Exception {
        CountDownLatch created = new CountDownLatch(1);
        CountDownLatch completed = new CountDownLatch(1);
        long[] ids = new long[2];
        Thread owner = new Thread(() -> {
            try {
                ids[0] = sendById(new Object());
                ids[1] = sendById(new Object());
                created.countDown();
                completed.await();
                sendById(new Object()); // takes in the mark
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        owner.start();
        created.await();
        registry.requestCompleted(null, ids[0]);
        assertEquals(1, tables(registry)[1].doneCount(), "marked for the owner");
        assertFalse(requests(snapshot()).stream().anyMatch(h -> h.id() == ids[0]), "gone at once");
        completed.countDown();
        owner.join();
        assertEquals(0, tables(registry)[1].doneCount());
        assertEquals(2, requests(snapshot()).size());
    }

    @Test
    void requestStacksOptionKeepsRequestsKeyedByIdInTheSharedTableByThatId() throws Exception {
        registry.configure("test", "mpj", false, true);
        Object wrapper = new Object();
        long id = sendById(wrapper);
        assertTrue(id > 0);
        registry.setStack(wrapper, id, new String[] {"App.main(App.java:12)"});
        assertEquals(1, tables(registry).length, "no thread table");
        HandleInfo r = requests(snapshot()).get(0);
        assertEquals(id, r.id());
        assertFalse(r.hasCHandle());
        assertEquals("App.main(App.java:12)", r.createdAt());
        assertEquals(Set.of(commId), new HashSet<>(new RegistryDecoder(reader).wrapperIds().values()),
                "no request wrapper in the wrapper index");
        registry.requestCompleted(new Object(), id); // found by its key, not by the wrapper's identity
        assertTrue(requests(snapshot()).isEmpty());
    }
}
