package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a client that leaves must resume: its own suspensions, counted as JDWP counts them. */
class SuspensionsTest {
    @Test
    void threadSuspensionsAreCountedAndOnlyOwnResumesUndoThem() {
        Suspensions s = new Suspensions();
        s.threadSuspended(5);
        s.threadSuspended(5);
        s.threadSuspended(6);
        s.threadResumed(5);
        s.threadResumed(9); // not its own: nothing to undo
        assertEquals(Map.of(5L, 1, 6L, 1), s.threads());
    }

    @Test
    void aVmResumeUndoesAVmSuspensionFirstElseOneOfEachThread() {
        Suspensions s = new Suspensions();
        s.vmSuspended();
        s.threadSuspended(5);
        s.vmResumed();
        assertEquals(0, s.vm());
        assertEquals(Map.of(5L, 1), s.threads());
        s.vmResumed(); // the JVM resumes every thread once
        assertEquals(Map.of(), s.threads());
    }

    @Test
    void drainingHandsOverEverythingOnce() {
        Suspensions s = new Suspensions();
        s.vmSuspended();
        s.threadSuspended(5);
        Suspensions held = s.drain();
        assertEquals(1, held.vm());
        assertEquals(Map.of(5L, 1), held.threads());
        assertEquals(0, s.vm());
        assertEquals(Map.of(), s.threads());
    }
}
