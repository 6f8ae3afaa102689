package io.mpilens.agent.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentThreadsTest {
    @Test
    void theAgentsThreadsGoToTheJvmsRootGroupNotTheApplications() throws Exception {
        ThreadGroup g = AgentThreads.group();
        assertEquals("system", g.getName());
        assertNull(g.getParent());
        ThreadGroup application = Thread.currentThread().getThreadGroup();
        Thread[] seen = new Thread[application.activeCount() + 16];
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(g, () -> {
            started.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mpilens-test");
        t.setDaemon(true);
        t.start();
        started.await();
        try {
            int n = application.enumerate(seen, true);
            for (int i = 0; i < n; i++) assertTrue(seen[i] != t, "the application's group does not list the agent's thread");
        } finally {
            done.countDown();
            t.join();
        }
    }
}
