package io.mpilens.agent.job;

/**
 * Where the agent's own threads live: the JVM's root thread group ({@code system}), beside the
 * JVM's Reference Handler and Finalizer, not in the application's {@code main} group. So the
 * application's {@code Thread.activeCount()} and {@code ThreadGroup.enumerate} on its own group do
 * not count them, and Eclipse's Debug view lists them with the JVM's system threads, hidden until
 * the user asks for those.
 */
public final class AgentThreads {
    private AgentThreads() {
    }

    /**
     * The root of the calling thread's thread groups; null (a new thread then joins the caller's
     * group, as without one) where a security manager refuses threads in it.
     */
    public static ThreadGroup group() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        if (g == null) return null;
        for (ThreadGroup p = g.getParent(); p != null; p = p.getParent()) g = p;
        try {
            g.checkAccess();
        } catch (SecurityException e) {
            return null;
        } catch (LinkageError e) {
            // a JDK without the method has no security manager either: nothing refuses
        }
        return g;
    }
}
