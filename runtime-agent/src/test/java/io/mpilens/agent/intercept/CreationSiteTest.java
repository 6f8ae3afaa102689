package io.mpilens.agent.intercept;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.sitecheck.Caller;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Creation stacks: the application's frames, at most eight, found once per creating call site
 * (the first application frame's class, method and bytecode index), never by a walk of the
 * whole stack.
 */
class CreationSiteTest {
    private static final BindingProfile PROFILE = new BindingProfile();
    private static final Supplier<String[]> STACK = () -> HandleDescriber.stack(PROFILE);

    static {
        PROFILE.bindingPackages = new String[] {"mpi."};
    }

    @Test
    void aCallSiteSeenBeforeGivesItsKeptStack() throws IOException {
        String[] first = Caller.fromFirst(STACK);
        String[] again = Caller.fromFirst(STACK);
        assertSame(first, again, "the second creation at the same site reuses the first's stack");
        assertEquals("io.mpilens.sitecheck.Caller.site(Caller.java:" + line("SITE") + ")", first[0]);
        assertEquals("io.mpilens.sitecheck.Caller.fromFirst(Caller.java:" + line("FIRST") + ")", first[1]);
        // the test itself is in the agent's packages, whose frames are never the application's: JUnit's come next
        for (String f : first) assertTrue(!f.startsWith("io.mpilens.agent.") && !f.startsWith("java."), f);
    }

    @Test
    void anotherSiteIsWalkedOnItsOwn() throws IOException {
        String[] one = Caller.fromFirst(STACK);
        String[] other = Caller.otherSite(STACK);
        assertNotSame(one, other);
        assertEquals("io.mpilens.sitecheck.Caller.otherSite(Caller.java:" + line("OTHER") + ")", other[0]);
    }

    @Test
    void theSameLineFromAnotherCallerShowsTheFirstCallerBelowIt() throws IOException {
        // the documented cost of finding a site once: frames beyond the first are the first creation's
        String[] viaFirst = Caller.fromFirst(STACK);
        String[] viaSecond = Caller.fromSecond(STACK);
        assertArrayEquals(viaFirst, viaSecond);
        assertEquals("io.mpilens.sitecheck.Caller.site(Caller.java:" + line("SITE") + ")", viaSecond[0]);
    }

    @Test
    void atMostEightFramesFromADeepStack() throws IOException {
        String[] s = Caller.deep(500, STACK);
        assertEquals(8, s.length, List.of(s).toString());
        assertEquals("io.mpilens.sitecheck.Caller.deepSite(Caller.java:" + line("DEEP") + ")", s[0]);
        for (int i = 1; i < 8; i++) assertTrue(s[i].startsWith("io.mpilens.sitecheck.Caller.deep("), s[i]);
    }

    /** The line of Caller.java marked with {@code // MARK}. */
    private static int line(String mark) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("src/test/java/io/mpilens/sitecheck/Caller.java"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).endsWith("// " + mark)) return i + 1;
        throw new IllegalStateException("no line marked " + mark);
    }
}
