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
 */
public record BindingFrame(String thread, String declaringClass, String method, String receiverClass,
                           Long receiverHandle, List<Integer> intArguments) {
}
