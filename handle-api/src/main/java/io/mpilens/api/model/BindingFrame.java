package io.mpilens.headless.jdi;

import java.util.List;

/**
 * The outermost MPI binding frame on one thread's stack: the call the application is inside.
 *
 * @param thread         the thread's name
 * @param declaringClass the binding class declaring the method, e.g. {@code mpi.Intracomm}
 * @param method         the method, e.g. {@code barrier}
 * @param receiverClass  the receiver's class ({@code this} of the frame), null for a static method
 * @param receiverHandle the receiver's native handle (its {@code handle} field, Open MPI), null if it has none
 * @param intArguments   the frame's arguments, {@code int} ones as values and others as null
 * @param receiverPredefined the receiver is a predefined handle: {@code MPI_} + the static field of
 *                       {@code mpi.MPI} (of the frame's class loader) that holds it, e.g.
 *                       {@code MPI_COMM_WORLD}; null otherwise or when it has a native handle.
 *                       How MPJ Express receivers, which have no native handle, are identified.
 * @param receiverMembers for an MPJ Express communicator that is not predefined: its group as
 *                       COMM_WORLD ranks (read from its device group's process ids), else null
 * @param receiverId     the registry id of the receiver found by its identity in the agent's wrapper
 *                       index ({@code RegistryDecoder.wrapperIds()}), null when not there (no agent,
 *                       an Open MPI request, a handle from before the agent came)
 * @param requests       the elements of an array of requests passed to the call ({@code waitAll},
 *                       {@code waitAny}, {@code startAll}…), in order; null when there is none or it was not
 *                       read (longer than {@link ThreadFrames#MAX_REQUESTS})
 * @param worldId        the registry id of {@code mpi.MPI.COMM_WORLD} as the frame's class loader sees
 *                       it: which rank the thread belongs to in a JVM of several (MPJ Express multicore,
 *                       one loader per rank); null when not asked for or not known
 */
public record BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                           Long receiverHandle, List<Integer> intArguments, String receiverPredefined,
                           List<Integer> receiverMembers, Long receiverId, List<Element> requests, Long worldId) {
    /**
     * One element of a request array: its native handle ({@code handle} field, Open MPI) and its
     * registry id by identity (wrapper id field or index), each null when unknown; both null for a null element.
     */
    public record Element(Long handle, Long registryId) {
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
}
