package io.mpilens.agent.weave;

import io.mpilens.agent.intercept.Interceptor;
import io.mpilens.agent.registry.WrapperRequests;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice woven into the binding's classes. Each body is one call into {@link Interceptor},
 * which never throws; {@code suppress} is a second net so not even an error while handing
 * off can reach the application.
 */
public final class Advices {
    private Advices() {
    }

    public static final class Create {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call,
                         @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            // the argument array is made where it is read: not for what the binding creates inside its own calls
            if (thrown == null && Interceptor.outsideAgent()) Interceptor.created(origin, call, self, args, result);
        }
    }

    public static final class Construct {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.This Object self,
                         @Advice.AllArguments Object[] args) {
            if (Interceptor.outsideAgent()) Interceptor.constructed(origin, args, self);
        }
    }

    /**
     * Point-to-point request creation, peer and tag at argument positions 3 and 4 (Open MPI); the
     * matcher only takes methods with ints there, so they are passed unboxed (a boxed tag or rank
     * above 127 was an allocation per request).
     */
    public static final class P2pRequest34 {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call,
                         @Advice.This(optional = true) Object self,
                         @Advice.Argument(3) int peer, @Advice.Argument(4) int tag,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.requestCreated(origin, call, self, peer, tag, result);
        }
    }

    /** Point-to-point request creation, peer and tag (ints) at argument positions 4 and 5 (mpiJava 1.2). */
    public static final class P2pRequest45 {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call,
                         @Advice.This(optional = true) Object self,
                         @Advice.Argument(4) int peer, @Advice.Argument(5) int tag,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.requestCreated(origin, call, self, peer, tag, result);
        }
    }

    /** Other request-creating calls (collectives, RMA, file I/O): no peer or tag. */
    public static final class OtherRequest {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call,
                         @Advice.This(optional = true) Object self,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.requestCreated(origin, call, self, Interceptor.UNKNOWN, Interceptor.UNKNOWN, result);
        }
    }

    /** The binding writes completed requests' null handles back: see which ones changed. */
    public static final class HandlesWriteback {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(0) Object requests, @Advice.Argument(1) Object newHandles) {
            Interceptor.handlesWrittenBack(requests, newHandles);
        }
    }

    public static final class Free {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object self) {
            return Interceptor.requestKey(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Enter long key, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.freed(self, key);
        }
    }

    /** Wait/test on one request; the native handle is read before the binding nulls it. */
    public static final class CompleteOne {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object self) {
            return Interceptor.requestKey(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin("#m") String call, @Advice.This Object self, @Advice.Enter long key,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.completedOne(call, self, key, result);
        }
    }

    public static final class CompleteArray {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call,
                         @Advice.Argument(0) Object requests,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null && Interceptor.arrayCompletionNeeded()) Interceptor.completedArray(origin, call, requests, result);
        }
    }

    /** Start of a persistent request; MPJ Express starts it by calling Isend, which is not a new handle. */
    public static final class StartOne {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            Interceptor.enterBindingInternals();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Thrown Throwable thrown) {
            Interceptor.leaveBindingInternals();
            if (thrown == null) Interceptor.started(self);
        }
    }

    public static final class StartAll {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            Interceptor.enterBindingInternals();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Argument(0) Object requests, @Advice.Thrown Throwable thrown) {
            Interceptor.leaveBindingInternals();
            if (thrown == null) Interceptor.started(requests);
        }
    }

    public static final class SetErrhandler {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) Object errhandler,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.errhandlerSet(self, errhandler);
        }
    }

    public static final class SetName {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) Object name, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.named(self, name);
        }
    }

    /** An info's pair was set: the agent's copy of its pairs follows (no MPI call). */
    public static final class InfoSet {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) String key, @Advice.Argument(1) String value,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.infoChanged(self, key, value, true);
        }
    }

    public static final class InfoDelete {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) String key, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.infoChanged(self, key, null, false);
        }
    }

    /** An attribute was cached on a communicator, window or datatype: keyval and a short text of the value. */
    public static final class AttrSet {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) int keyval,
                         @Advice.Argument(value = 1, typing = Assigner.Typing.DYNAMIC) Object value,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.attributeChanged(self, keyval, value, true);
        }
    }

    public static final class AttrDelete {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) int keyval, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.attributeChanged(self, keyval, null, false);
        }
    }

    public static final class Commit {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.committed(self);
        }
    }

    /** Handles the binding creates inside Init are its own; the predefined ones are registered at exit. */
    public static final class Init {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            Interceptor.enterBindingInternals();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> mpi, @Advice.Thrown Throwable thrown) {
            Interceptor.leaveBindingInternals();
            if (thrown == null) Interceptor.initialized(mpi);
        }
    }

    public static final class Finalize {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> mpi, @Advice.Thrown Throwable thrown) {
            if (thrown == null) Interceptor.finalized(mpi);
        }
    }

    /** A blocking call (send, receive, collective, wait) returned or threw: the progress signal. */
    public static final class BlockingReturn {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin) {
            Interceptor.blockingCallReturned(origin);
        }
    }

    /**
     * A collective the binding writes in Java ({@code BindingProfile.javaCollectives}): the
     * handles, requests and failures of the calls it makes inside are the binding's own. The one
     * advice on such a method: it also does {@link BlockingReturn}'s and {@link Failure}'s work
     * when the collective leaves, so no order between advices decides what is inside.
     */
    public static final class CollectiveScope {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static int[] enter() {
            return Interceptor.enterCollective();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call, @Advice.This Object self,
                         @Advice.Argument(value = 3, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg3,
                         @Advice.Argument(value = 4, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg4,
                         @Advice.Thrown Throwable thrown, @Advice.Enter int[] depth) {
            Interceptor.leaveCollective(depth, origin);
            if (thrown != null) Interceptor.failed(origin, call, self, arg3, arg4, thrown);
        }
    }

    /**
     * Any public instance call on a communicator, request or window that throws: the MPI
     * exception is recorded. Arguments are read only when something was thrown, so the
     * normal path costs one null check.
     */
    public static final class Failure {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin Class<?> origin, @Advice.Origin("#m") String call, @Advice.This Object self,
                         @Advice.Argument(value = 3, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg3,
                         @Advice.Argument(value = 4, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg4,
                         @Advice.Thrown Throwable thrown) {
            if (thrown != null) Interceptor.failed(origin, call, self, arg3, arg4, thrown);
        }
    }

    /** Request creation with peer and tag at positions 3 and 4, recorded in the request wrapper. */
    public static final class WrapperRequest34 {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin("#m") String call, @Advice.This(optional = true) Object self,
                         @Advice.Argument(3) int peer, @Advice.Argument(4) int tag,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) WrapperRequests.created(self, call, peer, tag, result);
        }
    }

    /**
     * Request creation with peer and tag at positions 4 and 5, recorded in the request wrapper: MPJ
     * Express, whose ranks can be threads of one JVM (multicore), so the sequence is atomic.
     */
    public static final class WrapperRequest45 {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin("#m") String call, @Advice.This(optional = true) Object self,
                         @Advice.Argument(4) int peer, @Advice.Argument(5) int tag,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null && Interceptor.applicationsRequest()) WrapperRequests.createdSharingJvm(self, call, peer, tag, result);
        }
    }

    /** Other request creation (no peer or tag), recorded in the request wrapper. */
    public static final class WrapperRequestOther {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin("#m") String call, @Advice.This(optional = true) Object self,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null && Interceptor.applicationsRequest()) {
                WrapperRequests.created(self, call, Interceptor.UNKNOWN, Interceptor.UNKNOWN, result);
            }
        }
    }

    /** Wait/test on one request when only persistent requests live in tables: nothing unless one was seen. */
    public static final class CompletePersistentOne {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object self) {
            return Interceptor.persistentSeen() && !WrapperRequests.inWrapper(self) ? Interceptor.requestKey(self) : 0;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Origin("#m") String call, @Advice.This Object self, @Advice.Enter long key,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null && key != 0) Interceptor.completedOne(call, self, key, result);
        }
    }

    /** A wait on one request returned: a request in its wrapper is complete (the ring's slot is marked done). */
    public static final class WrapperWait {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Thrown Throwable thrown) {
            if (thrown == null) WrapperRequests.done(self);
        }
    }

    /** A test on one request returned: complete when it says so (Open MPI's {@code test} leaves the handle as it was). */
    public static final class WrapperTest {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) WrapperRequests.tested(self, result);
        }
    }

    /** The binding writes completed requests' null handles back: those requests in wrappers are complete. */
    public static final class WrapperWriteback {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(0) Object requests, @Advice.Argument(1) Object newHandles) {
            WrapperRequests.writtenBack(requests, newHandles);
        }
    }
}
