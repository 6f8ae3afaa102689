package io.mpilens.api.model;

import java.util.List;
import java.util.Objects;

/**
 * The outermost MPI binding frame on one thread's stack: the call the application is inside, as
 * a debugger read it (the headless side's {@code jdi.ThreadFrames}); the model's input for the
 * calls in flight, so that the model needs no reader. (A class, not a record: handle-api is
 * compiled for Java 11, the oldest JVM the agent runs in.) Its parts:
 * <ul>
 * <li>{@code thread}: the thread's name
 * <li>{@code declaringClass}: the binding class declaring the method, e.g. {@code mpi.Intracomm}
 * <li>{@code method}: the method, e.g. {@code barrier}
 * <li>{@code receiverClass}: the receiver's class ({@code this} of the frame), null for a static method
 * <li>{@code receiverHandle}: the receiver's native handle (its {@code handle} field, Open MPI), null if it has none
 * <li>{@code intArguments}: the frame's arguments, {@code int} ones as values and others as null
 * <li>{@code receiverPredefined}: the receiver is a predefined handle: {@code MPI_} + the static field of
 *                       {@code mpi.MPI} (of the frame's class loader) that holds it, e.g.
 *                       {@code MPI_COMM_WORLD}; null otherwise or when it has a native handle.
 *                       How MPJ Express receivers, which have no native handle, are identified.
 * <li>{@code receiverMembers}: for an MPJ Express communicator that is not predefined: its group as
 *                       COMM_WORLD ranks (read from its device group's process ids), else null
 * <li>{@code receiverId}: the registry id of the receiver found by its identity in the agent's wrapper
 *                       index ({@code RegistryDecoder.wrapperIds()}), null when not there (no agent,
 *                       an Open MPI request, a handle from before the agent came)
 * <li>{@code requests}: the elements of an array of requests passed to the call ({@code waitAll},
 *                       {@code waitAny}, {@code startAll}…), in order; null when there is none or it was not
 *                       read (longer than the reader's bound, {@code jdi.ThreadFrames.MAX_REQUESTS})
 * <li>{@code worldId}: the registry id of {@code mpi.MPI.COMM_WORLD} as the frame's class loader sees
 *                       it: which rank the thread belongs to in a JVM of several (MPJ Express multicore,
 *                       one loader per rank); null when not asked for or not known
 * </ul>
 */
public final class BindingFrame {
    private final String thread;
    private final String declaringClass;
    private final String method;
    private final String receiverClass;
    private final Long receiverHandle;
    private final List<Integer> intArguments;
    private final String receiverPredefined;
    private final List<Integer> receiverMembers;
    private final Long receiverId;
    private final List<Element> requests;
    private final Long worldId;

    /**
     * One element of a request array: its native handle ({@code handle} field, Open MPI) and its
     * registry id by identity (wrapper id field or index), each null when unknown; both null for a null element.
     */
    public static final class Element {
        private final Long handle;
        private final Long registryId;

        public Element(Long handle, Long registryId) {
            this.handle = handle;
            this.registryId = registryId;
        }

        public Long handle() {
            return handle;
        }

        public Long registryId() {
            return registryId;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Element && Objects.equals(handle, ((Element) o).handle)
                    && Objects.equals(registryId, ((Element) o).registryId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(handle, registryId);
        }

        @Override
        public String toString() {
            return "Element[handle=" + handle + ", registryId=" + registryId + "]";
        }
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments, String receiverPredefined,
                        List<Integer> receiverMembers, Long receiverId, List<Element> requests, Long worldId) {
        this.thread = thread;
        this.declaringClass = declaringClass;
        this.method = method;
        this.receiverClass = receiverClass;
        this.receiverHandle = receiverHandle;
        this.intArguments = intArguments;
        this.receiverPredefined = receiverPredefined;
        this.receiverMembers = receiverMembers;
        this.receiverId = receiverId;
        this.requests = requests;
        this.worldId = worldId;
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments, String receiverPredefined,
                        List<Integer> receiverMembers, Long receiverId, List<Element> requests) {
        this(thread, declaringClass, method, receiverClass, receiverHandle, intArguments, receiverPredefined,
                receiverMembers, receiverId, requests, null);
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments, String receiverPredefined,
                        List<Integer> receiverMembers, Long receiverId) {
        this(thread, declaringClass, method, receiverClass, receiverHandle, intArguments, receiverPredefined,
                receiverMembers, receiverId, null);
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments, String receiverPredefined,
                        List<Integer> receiverMembers) {
        this(thread, declaringClass, method, receiverClass, receiverHandle, intArguments, receiverPredefined,
                receiverMembers, null);
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments) {
        this(thread, declaringClass, method, receiverClass, receiverHandle, intArguments, null, null);
    }

    public BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                        Long receiverHandle, List<Integer> intArguments, String receiverPredefined) {
        this(thread, declaringClass, method, receiverClass, receiverHandle, intArguments, receiverPredefined, null);
    }

    public String thread() {
        return thread;
    }

    public String declaringClass() {
        return declaringClass;
    }

    public String method() {
        return method;
    }

    public String receiverClass() {
        return receiverClass;
    }

    public Long receiverHandle() {
        return receiverHandle;
    }

    public List<Integer> intArguments() {
        return intArguments;
    }

    public String receiverPredefined() {
        return receiverPredefined;
    }

    public List<Integer> receiverMembers() {
        return receiverMembers;
    }

    public Long receiverId() {
        return receiverId;
    }

    public List<Element> requests() {
        return requests;
    }

    public Long worldId() {
        return worldId;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BindingFrame)) return false;
        BindingFrame f = (BindingFrame) o;
        return Objects.equals(thread, f.thread) && Objects.equals(declaringClass, f.declaringClass)
                && Objects.equals(method, f.method) && Objects.equals(receiverClass, f.receiverClass)
                && Objects.equals(receiverHandle, f.receiverHandle) && Objects.equals(intArguments, f.intArguments)
                && Objects.equals(receiverPredefined, f.receiverPredefined)
                && Objects.equals(receiverMembers, f.receiverMembers) && Objects.equals(receiverId, f.receiverId)
                && Objects.equals(requests, f.requests) && Objects.equals(worldId, f.worldId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(thread, declaringClass, method, receiverClass, receiverHandle, intArguments,
                receiverPredefined, receiverMembers, receiverId, requests, worldId);
    }

    @Override
    public String toString() {
        return "BindingFrame[thread=" + thread + ", declaringClass=" + declaringClass + ", method=" + method
                + ", receiverClass=" + receiverClass + ", receiverHandle=" + receiverHandle + ", intArguments="
                + intArguments + ", receiverPredefined=" + receiverPredefined + ", receiverMembers=" + receiverMembers
                + ", receiverId=" + receiverId + ", requests=" + requests + ", worldId=" + worldId + "]";
    }
}
