package io.mpilens.headless.share;

import io.mpilens.headless.jdi.JdwpAddress;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The one JDWP connection to a rank's JVM, shared by any number of clients that each speak
 * JDWP to it as to the JVM. Commands get ids of this connection and their replies go back under
 * the client's own id; event requests belong to the client that set them, and each event goes to
 * the owner of its request ({@link CompositeEvents#split}), VM start and death to every client.
 * A client that leaves ({@code Dispose}, or its socket drops) takes its event requests, its
 * suspensions, its held events and the objects it pinned with it, and nothing else: the JVM
 * itself is never disposed while the share holds it.
 *
 * <p>The relay path: a client's thread reads its command and writes it to the JVM's socket itself;
 * the JVM connection's reader writes each reply to the client's socket itself (no queue, no other
 * thread), each packet in one write ({@link JdwpOut}). Of the two wake-ups a relayed round trip
 * adds, neither need be on its path: the JVM's reader polls for a reply that is due, and a client's
 * reader, woken once its client's answer is sent, polls for the next command ({@link BoundedPoll}),
 * each at most a few tens of microseconds.
 *
 * <p>Why this file is over 500 lines (about 680): the per-client state (ids, event requests,
 * suspensions, held events, pins) and the relay that rewrites ids both ways are one invariant —
 * every packet's id and every client's leave must see the same tables under the same lock — and
 * the inner {@code Client} is that state; the waits ({@code DueWait}) and polls are already apart.
 */
public final class SharedVm implements AutoCloseable {
    static final byte[] HANDSHAKE = "JDWP-Handshake".getBytes(StandardCharsets.US_ASCII);

    static final int VM = 1, VM_DISPOSE = 6, VM_ID_SIZES = 7, VM_SUSPEND = 8, VM_RESUME = 9, VM_HOLD_EVENTS = 15,
            VM_RELEASE_EVENTS = 16;
    static final int OBJECT = 9, OBJECT_DISABLE_COLLECTION = 7, OBJECT_ENABLE_COLLECTION = 8;
    static final int THREAD = 11, THREAD_SUSPEND = 2, THREAD_RESUME = 3;
    static final int EVENT_REQUEST = 15, ER_SET = 1, ER_CLEAR = 2, ER_CLEAR_ALL_BREAKPOINTS = 3;
    private static final int ERROR_NONE = 0;
    /** How long a client that connected has to send the JDWP handshake. */
    static final long HANDSHAKE_MILLIS = 10_000;

    private static final boolean DEBUG = Boolean.getBoolean("mpilens.share.debug");
    private final String name;
    private final Socket socket;
    private final DataInputStream in;
    private final JdwpOut out;
    /** The budget of this share's {@link BoundedPoll}s, in nanoseconds (0: its readers never poll). */
    private volatile long pollNanos = BoundedPoll.configuredMicros() * 1000;
    private final LongAdder pollsCaught = new LongAdder();
    private final LongAdder pollsMissed = new LongAdder();
    /** The JVM connection's reader's, for replies. */
    private final BoundedPoll replies = new BoundedPoll(pollsCaught, pollsMissed);
    /** That reader, woken when a client's command goes out. */
    private volatile Thread jvmReader;
    /** Its state between packets: whether the last packet was a reply to a client. */
    private boolean repliedLast;
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicInteger clientNumbers = new AtomicInteger();
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    /**
     * The JVM's reader's sleep after a reply to a client, until a client's command goes out (its
     * reader wakes this one after its write, while the JVM works on the command): then its reply is
     * due. After a late one the next does not sleep: an idle share reads its events at once every
     * other time; a busy one never waits for them longer than the budget.
     */
    private final DueWait commandOut = new DueWait(() -> !pending.isEmpty());
    private final Map<Integer, Request> requests = new ConcurrentHashMap<>();
    private final List<Client> clients = new CopyOnWriteArrayList<>();
    /**
     * Object to how many pins ({@code DisableCollection} not yet undone) each client holds on it;
     * also the lock under which a pin or unpin is decided and written. The JVM sees one pin per
     * object however many clients pin it: the first pin is sent, the last unpin is sent, the rest
     * are answered here. So an object stays pinned while any client pins it, whether or not the
     * JVM's back-end counts pins (JDK 17's does).
     */
    private final Map<Long, Map<Client, Integer>> pins = new HashMap<>();
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private volatile IdSizes sizes = IdSizes.HOTSPOT;

    /** An event request and the client that set it. */
    private record Request(Client owner, int kind) {
    }

    /** A command sent to the JVM: for a client (its own id), or the share's own ({@code ours}, may be null). */
    private record Pending(Client client, int clientId, JdwpPacket command, CompletableFuture<JdwpPacket> ours) {
    }

    private SharedVm(String name, Socket socket) throws IOException {
        this.name = name;
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        this.out = new JdwpOut(socket.getOutputStream());
    }

    /**
     * Connects to the JVM's JDWP listener at {@code jvm} (handshake, then {@code IDSizes}) within
     * {@code timeout}; fails with the reason when it is not a JDWP listener or already has a debugger.
     */
    public static SharedVm connect(JdwpAddress jvm, Duration timeout, String name) throws IOException {
        Socket s = new Socket();
        long ms = Math.max(1, timeout.toMillis());
        try {
            // no connect or read timeout on the socket (it would stay non-blocking, see SetupDeadline): a deadline closes it
            try (SetupDeadline deadline = new SetupDeadline(s, ms)) {
                try {
                    s.connect(new InetSocketAddress(jvm.host(), jvm.port()));
                } catch (ConnectException e) {
                    throw new IOException("nothing listens at " + jvm + " (" + e.getMessage() + "): a debugger attached to the"
                            + " JVM directly holds its one JDWP connection (detach it, then it is shared), or the JVM ended", e);
                } catch (IOException e) {
                    if (deadline.fired()) throw new IOException(jvm + " did not accept a connection within " + ms + " ms", e);
                    throw e;
                }
                s.setTcpNoDelay(true);
                OutputStream o = s.getOutputStream();
                o.write(HANDSHAKE);
                o.flush();
                byte[] answer = new byte[HANDSHAKE.length];
                try {
                    new DataInputStream(s.getInputStream()).readFully(answer);
                } catch (EOFException e) {
                    throw new IOException(jvm + " closed the connection at the JDWP handshake: another debugger is"
                            + " probably attached to it (a JVM serves one); detach it and share again");
                } catch (IOException e) {
                    if (deadline.fired()) {
                        throw new IOException(jvm + " accepted but did not answer the JDWP handshake within " + ms + " ms: is it a JDWP port?");
                    }
                    throw e;
                }
                if (!Arrays.equals(answer, HANDSHAKE)) throw new IOException(jvm + " is not a JDWP listener (wrong handshake)");
            }
            if (s.isClosed()) throw new IOException(jvm + " did not finish the JDWP handshake within " + ms + " ms");
            SharedVm vm = new SharedVm(name, s);
            vm.start();
            JdwpPacket ids = vm.ask(VM, VM_ID_SIZES, new byte[0], timeout);
            if (ids.errorCode() != ERROR_NONE) throw new IOException(jvm + " refused IDSizes (JDWP error " + ids.errorCode() + ")");
            vm.sizes = IdSizes.parse(ids.data());
            return vm;
        } catch (IOException | RuntimeException e) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already failing
            }
            throw e;
        }
    }

    public String name() {
        return name;
    }

    public IdSizes idSizes() {
        return sizes;
    }

    /** Completes with the reason once the JVM's connection is gone (the JVM ended or dropped it). */
    public CompletableFuture<String> ended() {
        return ended;
    }

    /** How many clients are attached now. */
    public int clients() {
        return clients.size();
    }

    /** How many event requests of clients the JVM holds now (for tests). */
    int ownedRequests() {
        return requests.size();
    }

    /**
     * How long the share's readers poll for a packet that is due before they sleep ({@link
     * BoundedPoll}), in microseconds (0: never); by default {@value BoundedPoll#DEFAULT_MICROS}, or
     * the system property {@value BoundedPoll#PROPERTY}.
     */
    public void pollMicros(long micros) {
        pollNanos = Math.max(0, micros) * 1000;
    }

    public long pollMicros() {
        return pollNanos / 1000;
    }

    /** How many polls caught their packet, and how many came to nothing (the reader then slept), so far. */
    public long[] polls() {
        return new long[] {pollsCaught.sum(), pollsMissed.sum()};
    }

    private void start() {
        Thread t = new Thread(this::readJvm, "mpilens-share-" + name);
        t.setDaemon(true);
        t.start();
    }

    // ---- the JVM's side

    private void readJvm() {
        jvmReader = Thread.currentThread();
        String why = "the JVM closed its JDWP connection";
        try {
            while (true) {
                replies.before(in, !pending.isEmpty() || commandOut.await(repliedLast, in, pollNanos), pollNanos);
                JdwpPacket p = JdwpPacket.read(in);
                replies.after();
                if (p == null) break;
                repliedLast = false;
                if (p.isReply()) onReply(p);
                else if (p.commandSet() == CompositeEvents.COMMAND_SET && p.command() == CompositeEvents.COMMAND) onEvents(p);
            }
        } catch (IOException | RuntimeException e) {
            if (!ended.isDone()) why = "the JDWP connection failed: " + e.getMessage();
        }
        end(why);
    }

    private void end(String why) {
        if (!ended.complete(why)) return;
        try {
            socket.close();
        } catch (IOException ignored) {
            // ending anyway
        }
        for (Client c : clients) c.close();
        for (Pending p : pending.values()) if (p.ours() != null) p.ours().completeExceptionally(new IOException(why));
        pending.clear();
    }

    private void onReply(JdwpPacket reply) {
        Pending p = pending.remove(reply.id());
        if (p == null) return;
        if (p.client() == null) {
            if (p.ours() != null) p.ours().complete(reply);
            return;
        }
        if (reply.errorCode() == ERROR_NONE) account(p.client(), p.command(), reply);
        else if (p.command().commandSet() == OBJECT && p.command().command() == OBJECT_DISABLE_COLLECTION) pinRefused(p.client(), p.command());
        if (!p.client().closed.get()) p.client().send(reply, p.clientId());
        repliedLast = true;
        p.client().answered();
    }

    /** What a client's command that succeeded changed of what it owns. */
    private void account(Client c, JdwpPacket command, JdwpPacket reply) {
        int set = command.commandSet(), cmd = command.command();
        synchronized (c) {
            if (!c.gone) {
                if (set == EVENT_REQUEST && cmd == ER_SET) {
                    requests.put(ByteBuffer.wrap(reply.data()).getInt(), new Request(c, command.data()[0] & 0xff));
                } else if (set == EVENT_REQUEST && cmd == ER_CLEAR) {
                    requests.remove(ByteBuffer.wrap(command.data(), 1, 4).getInt());
                } else if (set == VM && cmd == VM_SUSPEND) {
                    c.suspensions.vmSuspended();
                } else if (set == VM && cmd == VM_RESUME) {
                    c.suspensions.vmResumed();
                } else if (set == THREAD && cmd == THREAD_SUSPEND) {
                    c.suspensions.threadSuspended(new JdwpData(command.data(), sizes).objectId());
                } else if (set == THREAD && cmd == THREAD_RESUME) {
                    c.suspensions.threadResumed(new JdwpData(command.data(), sizes).objectId());
                }
                return;
            }
        }
        // the client left while its command was on its way: undo what it would have owned
        if (set == EVENT_REQUEST && cmd == ER_SET) {
            tell(EVENT_REQUEST, ER_CLEAR, JdwpData.eventRequestClear(command.data()[0] & 0xff, ByteBuffer.wrap(reply.data()).getInt()));
        } else if (set == VM && cmd == VM_SUSPEND) {
            tell(VM, VM_RESUME, new byte[0]);
        } else if (set == THREAD && cmd == THREAD_SUSPEND) {
            tell(THREAD, THREAD_RESUME, Arrays.copyOf(command.data(), sizes.objectId()));
        }
        // pins are decided when sent (see pin), held events never reach the JVM (see Client.hold)
    }

    /**
     * Each event to the owner of its request. The JVM suspended (by the policy) once for the
     * whole composite; each client that gets a part will resume once, so the share suspends once
     * more per extra receiver, and resumes itself when nobody gets it.
     */
    private void onEvents(JdwpPacket packet) {
        List<Client> everyone = new ArrayList<>(clients);
        CompositeEvents.Composite c;
        try {
            c = CompositeEvents.parse(packet.data(), sizes);
        } catch (IllegalArgumentException e) {
            // cannot be taken apart (a JVM beyond the specification): every client gets it whole, and
            // filters out what it did not ask for, as JDI does; the share itself goes on
            if (DEBUG) System.err.println("share " + name + ": " + e.getMessage());
            int policy = packet.data().length > 0 ? packet.data()[0] : CompositeEvents.SUSPEND_NONE;
            if (policy == CompositeEvents.SUSPEND_ALL) for (int i = 1; i < everyone.size(); i++) suspendOnce(policy, -1);
            int got = 0;
            for (Client each : everyone) if (each.deliver(policy, -1, packet)) got++;
            if (policy == CompositeEvents.SUSPEND_ALL) for (int i = got; i < Math.max(everyone.size(), 1); i++) resumeOnce(policy, -1);
            return;
        }
        Map<Client, byte[]> per = CompositeEvents.split(c, id -> {
            Request r = requests.get(id);
            return r == null ? null : r.owner();
        }, everyone);
        int policy = c.suspendPolicy();
        long thread = c.thread();
        if (DEBUG) System.err.println("share " + name + ": " + c.events() + " policy " + policy + " to " + per.keySet());
        boolean suspends = policy == CompositeEvents.SUSPEND_ALL
                || policy == CompositeEvents.SUSPEND_EVENT_THREAD && thread >= 0;
        if (suspends) for (int i = 1; i < per.size(); i++) suspendOnce(policy, thread);
        int delivered = 0;
        for (Map.Entry<Client, byte[]> e : per.entrySet()) {
            if (e.getKey().deliver(policy, thread, JdwpPacket.command(packet.id(), CompositeEvents.COMMAND_SET,
                    CompositeEvents.COMMAND, e.getValue()))) {
                delivered++;
            }
        }
        // the JVM suspended once and the share once per extra receiver; each receiver resumes once
        if (suspends) for (int i = delivered; i < Math.max(per.size(), 1); i++) resumeOnce(policy, thread);
    }

    private void suspendOnce(int policy, long thread) {
        if (policy == CompositeEvents.SUSPEND_ALL) tell(VM, VM_SUSPEND, new byte[0]);
        else tell(THREAD, THREAD_SUSPEND, JdwpData.objectId(thread, sizes));
    }

    private void resumeOnce(int policy, long thread) {
        if (policy == CompositeEvents.SUSPEND_ALL) tell(VM, VM_RESUME, new byte[0]);
        else tell(THREAD, THREAD_RESUME, JdwpData.objectId(thread, sizes));
    }

    /** Sends a command of the share's own and waits for its reply. */
    JdwpPacket ask(int set, int cmd, byte[] data, Duration timeout) throws IOException {
        CompletableFuture<JdwpPacket> f = new CompletableFuture<>();
        int id = ids.incrementAndGet();
        pending.put(id, new Pending(null, 0, null, f));
        writeJvm(JdwpPacket.command(id, set, cmd, data), id);
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.remove(id);
            throw new IOException(name + " did not answer JDWP command " + set + "/" + cmd + " within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** Sends a command of the share's own whose reply nobody waits for. */
    private void tell(int set, int cmd, byte[] data) {
        int id = ids.incrementAndGet();
        pending.put(id, new Pending(null, 0, null, null));
        try {
            writeJvm(JdwpPacket.command(id, set, cmd, data), id);
        } catch (IOException e) {
            pending.remove(id); // the connection is gone: the reader ends the share
        }
    }

    /** Writes {@code p} to the JVM under this connection's id {@code id}. */
    private void writeJvm(JdwpPacket p, int id) throws IOException {
        if (ended.isDone()) throw new IOException(name + ": " + ended.getNow(""));
        out.write(p, id);
    }

    /**
     * A client's {@code DisableCollection}: counted as the client's; sent when nobody pinned the
     * object yet, else answered here (a client that has left pins nothing).
     */
    private void pin(Client c, JdwpPacket p) throws IOException {
        long object = new JdwpData(p.data(), sizes).objectId();
        synchronized (pins) {
            if (c.gone) return;
            Map<Client, Integer> by = pins.computeIfAbsent(object, k -> new HashMap<>());
            boolean first = by.isEmpty();
            by.merge(c, 1, Integer::sum);
            if (first) {
                c.forward(p);
                return;
            }
        }
        c.send(JdwpPacket.reply(p.id(), ERROR_NONE, new byte[0]), p.id());
    }

    /** A pin the JVM refused (the object was collected): not counted after all. */
    private void pinRefused(Client c, JdwpPacket command) {
        long object = new JdwpData(command.data(), sizes).objectId();
        synchronized (pins) {
            Map<Client, Integer> by = pins.get(object);
            if (by == null) return;
            by.computeIfPresent(c, (k, n) -> n <= 1 ? null : n - 1);
            if (by.isEmpty()) pins.remove(object);
        }
    }

    /**
     * A client's {@code EnableCollection}: undoes one pin of its own; sent when that was the
     * object's last pin (or the object is nobody's), else answered here.
     */
    private void unpin(Client c, JdwpPacket p) throws IOException {
        long object = new JdwpData(p.data(), sizes).objectId();
        synchronized (pins) {
            Map<Client, Integer> by = pins.get(object);
            if (by != null) {
                by.computeIfPresent(c, (k, n) -> n <= 1 ? null : n - 1);
                if (by.isEmpty()) pins.remove(object);
            }
            if (by == null || by.isEmpty()) {
                c.forward(p);
                return;
            }
        }
        c.send(JdwpPacket.reply(p.id(), ERROR_NONE, new byte[0]), p.id());
    }

    /** Undoes the pins of a client that left: the JVM is told of each object nobody else pins. */
    private void unpinAll(Client c) {
        synchronized (pins) {
            for (Iterator<Map.Entry<Long, Map<Client, Integer>>> it = pins.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Map<Client, Integer>> e = it.next();
                if (e.getValue().remove(c) != null && e.getValue().isEmpty()) {
                    it.remove();
                    tell(OBJECT, OBJECT_ENABLE_COLLECTION, JdwpData.objectId(e.getKey(), sizes));
                }
            }
        }
    }

    // ---- the clients' side

    /**
     * Takes a client that connected to the share's port: answers its handshake, then serves it
     * on a thread of its own until it leaves.
     */
    public void attach(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        byte[] hello = new byte[HANDSHAKE.length];
        // the handshake comes at once; a socket that sends nothing is not a debugger (a deadline, not a
        // read timeout: the socket stays blocking, see SetupDeadline)
        try (SetupDeadline deadline = new SetupDeadline(s, HANDSHAKE_MILLIS)) {
            try {
                new DataInputStream(s.getInputStream()).readFully(hello);
            } catch (IOException e) {
                s.close();
                throw deadline.fired() ? new IOException("a client on the share of " + name + " sent no JDWP handshake within "
                        + HANDSHAKE_MILLIS + " ms", e) : e;
            }
        }
        if (s.isClosed() || !Arrays.equals(hello, HANDSHAKE)) {
            s.close();
            throw new IOException("a client on the share of " + name + " did not send the JDWP handshake");
        }
        Client c = new Client(s, clientNumbers.incrementAndGet());
        c.out.raw(HANDSHAKE);
        if (ended.isDone()) {
            s.close();
            return;
        }
        clients.add(c);
        Thread t = new Thread(c::serve, "mpilens-share-" + name + "-client-" + c.number);
        t.setDaemon(true);
        t.start();
    }

    /** One debugger (or mpilens reader) attached to the share. */
    private final class Client {
        @Override
        public String toString() {
            return "client " + number;
        }

        final Socket socket;
        final int number;
        final DataInputStream in;
        final JdwpOut out;
        final Suspensions suspensions = new Suspensions();
        /**
         * Its {@code HoldEvents} in force: its events wait here, in order, until its {@code
         * ReleaseEvents} (the JVM, and the other clients, go on getting theirs); dropped when it
         * leaves, their suspensions undone with its others. Guarded by this.
         */
        boolean holding;
        final List<JdwpPacket> held = new ArrayList<>();
        /** Left (disposed or disconnected): what it owned is released, nothing more is counted for it. */
        volatile boolean gone;
        final AtomicBoolean closed = new AtomicBoolean();
        /** Its commands sent to the JVM and not yet answered. */
        final AtomicInteger outstanding = new AtomicInteger();
        /** The thread that reads its socket ({@link #serve}), woken when its last command is answered. */
        volatile Thread reader;
        /** For its next command, due right after the answer to its last. */
        final BoundedPoll next = new BoundedPoll(pollsCaught, pollsMissed);
        /** Its reader's state between packets: whether the last packet went to the JVM. */
        private boolean forwardedLast;
        /**
         * After it sent a command and before its reader reads again: sleeps until every command of
         * it is answered (woken by {@link #answered}); then its next command is due, and the poll
         * that follows may catch it without a wake-up on the round trip's path (this wake-up came
         * while the client read its answer). After a late answer the next wait does not sleep, so
         * that a client with commands out in parallel is not held up each time.
         */
        private final DueWait answeredAll = new DueWait(() -> outstanding.get() <= 0);

        Client(Socket socket, int number) throws IOException {
            this.socket = socket;
            this.number = number;
            this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
            this.out = new JdwpOut(socket.getOutputStream());
        }

        void serve() {
            reader = Thread.currentThread();
            try {
                while (true) {
                    next.before(in, answeredAll.await(forwardedLast, in, pollNanos), pollNanos);
                    JdwpPacket p = JdwpPacket.read(in);
                    next.after();
                    if (p == null) break;
                    forwardedLast = false;
                    if (p.isReply()) continue; // the JVM's events need no reply
                    int set = p.commandSet(), cmd = p.command();
                    if (set == VM && cmd == VM_DISPOSE) {
                        release(); // never the JVM's Dispose: others (and the share) stay attached
                        send(JdwpPacket.reply(p.id(), ERROR_NONE, new byte[0]), p.id());
                        break; // and, as the JVM does, the connection ends
                    } else if (set == EVENT_REQUEST && cmd == ER_CLEAR_ALL_BREAKPOINTS) {
                        clearOwn(CompositeEvents.BREAKPOINT);
                        send(JdwpPacket.reply(p.id(), ERROR_NONE, new byte[0]), p.id());
                    } else if (set == VM && (cmd == VM_HOLD_EVENTS || cmd == VM_RELEASE_EVENTS)) {
                        hold(p, cmd == VM_HOLD_EVENTS);
                    } else if (set == OBJECT && cmd == OBJECT_DISABLE_COLLECTION) {
                        pin(this, p);
                    } else if (set == OBJECT && cmd == OBJECT_ENABLE_COLLECTION) {
                        unpin(this, p);
                    } else {
                        forward(p);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the client dropped its socket, or the JVM's connection ended
            }
            close();
        }

        /** Sends a command of this client's to the JVM under an id of the connection; its reply comes back under the client's. */
        void forward(JdwpPacket p) throws IOException {
            int up = ids.incrementAndGet();
            pending.put(up, new Pending(this, p.id(), p, null));
            outstanding.incrementAndGet();
            writeJvm(p, up);
            forwardedLast = true; // on the reader's thread: serve, pin, unpin
            if (pollNanos > 0) {
                Thread t = jvmReader;
                if (t != null) LockSupport.unpark(t);
            }
        }

        /** The JVM answered one of its commands (the answer was sent on). */
        void answered() {
            if (outstanding.decrementAndGet() <= 0 && pollNanos > 0) {
                Thread t = reader;
                if (t != null) LockSupport.unpark(t);
            }
        }

        /**
         * {@code HoldEvents} / {@code ReleaseEvents}, done here for this client alone: the JVM holds
         * one flag for its one connection, which would hold every client's events. Released, the
         * held events follow the reply in the order they came.
         */
        private void hold(JdwpPacket p, boolean on) {
            boolean failed;
            synchronized (this) {
                holding = on;
                failed = !trySend(JdwpPacket.reply(p.id(), ERROR_NONE, new byte[0]), p.id());
                if (!on) {
                    for (JdwpPacket e : held) if (!failed) failed = !trySend(e, e.id());
                    held.clear();
                }
            }
            if (failed) close();
        }

        /** Clears this client's event requests of {@code kind} (-1: all) in the JVM. */
        private void clearOwn(int kind) {
            for (Map.Entry<Integer, Request> e : requests.entrySet()) {
                Request r = e.getValue();
                if (r.owner() == this && (kind < 0 || r.kind() == kind) && requests.remove(e.getKey(), r)) {
                    tell(EVENT_REQUEST, ER_CLEAR, JdwpData.eventRequestClear(r.kind(), e.getKey()));
                }
            }
        }

        /** What the JVM does for a debugger that leaves, for this client only. */
        void release() {
            Suspensions owned;
            if (DEBUG) System.err.println("share " + name + ": client " + number + " leaves, " + suspensions.vm() + " vm " + suspensions.threads());
            synchronized (this) {
                gone = true;
                owned = suspensions.drain(); // with those of the events it held and now never gets
                holding = false;
                held.clear();
            }
            unpinAll(this);
            clearOwn(-1);
            for (Map.Entry<Long, Integer> t : owned.threads().entrySet()) {
                for (int i = 0; i < t.getValue(); i++) tell(THREAD, THREAD_RESUME, JdwpData.objectId(t.getKey(), sizes));
            }
            for (int i = 0; i < owned.vm(); i++) tell(VM, VM_RESUME, new byte[0]);
        }

        /** Counts the suspension an event brings and sends (or holds) it; false when the client has left. */
        boolean deliver(int policy, long thread, JdwpPacket events) {
            boolean failed;
            synchronized (this) {
                if (gone) return false;
                if (policy == CompositeEvents.SUSPEND_ALL) suspensions.vmSuspended();
                else if (policy == CompositeEvents.SUSPEND_EVENT_THREAD && thread >= 0) suspensions.threadSuspended(thread);
                if (holding) {
                    held.add(events);
                    return true;
                }
                failed = !trySend(events, events.id()); // under the lock: after any it held before
            }
            if (failed) close(); // which resumes what was just counted
            return true;
        }

        /** Sends {@code p} under id {@code id}; a failed send closes the client. */
        void send(JdwpPacket p, int id) {
            if (!trySend(p, id)) close();
        }

        private boolean trySend(JdwpPacket p, int id) {
            try {
                out.write(p, id);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        void close() {
            if (!closed.compareAndSet(false, true)) return;
            clients.remove(this);
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            if (!ended.isDone()) release(); // replies still on their way are accounted as the client's, then undone
        }
    }

    /** Drops every client and the JVM's connection (the JVM then frees what the share held, as for any debugger). */
    @Override
    public void close() {
        end("the share was closed");
    }
}
