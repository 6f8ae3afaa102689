package io.mpilens.agent.registry;

/**
 * Requests recorded in their wrappers: the whole creation path, called from advice inlined into
 * the binding's request-creating methods. No table, no lock, no atomic instruction, no
 * allocation; completing a request is the binding's own business. Never throws (the advice
 * suppresses anything besides).
 */
public final class WrapperRequests {
    /** Creation sequence, per JVM: racy on purpose (no atomic instruction); the decoder tells apart the rare duplicates. */
    private static long seq;

    private WrapperRequests() {
    }

    /** {@code self}: the wrapper the call was made on: a communicator, window or file holds the request. */
    public static void created(Object self, String call, int peer, int tag, Object result) {
        if (!(result instanceof RequestFacts)) return;
        RequestFacts r = (RequestFacts) result;
        r.mpilens$call(call);
        r.mpilens$peerTag((long) peer << 32 | (tag & 0xffffffffL));
        if (self instanceof RequestHolder) {
            RequestHolder holder = (RequestHolder) self;
            if (!holder.mpilens$requested()) holder.mpilens$requested(true);
            r.mpilens$holder(self);
        }
        r.mpilens$seq(++seq);
    }

    /** Whether this request lives in its wrapper (not in a request table). */
    public static boolean inWrapper(Object request) {
        return request instanceof RequestFacts && ((RequestFacts) request).mpilens$call() != null;
    }

    /** Whether a freed handle may still be held by requests in wrappers created on it. */
    static boolean mayBeHeld(Object wrapper) {
        return wrapper instanceof RequestHolder && ((RequestHolder) wrapper).mpilens$requested();
    }
}
