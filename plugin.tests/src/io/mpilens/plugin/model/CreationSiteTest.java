package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class CreationSiteTest {
    @Test
    void aFrameNamesItsTypeAndLine() {
        CreationSite s = CreationSite.of(Fixtures.split(0)).orElseThrow();
        assertEquals("io.mpilens.examples.openmpi.HandleTour", s.type());
        assertEquals(46, s.line());
    }

    @Test
    void nestedTypesUseDotsAndAnonymousOrLambdaFramesOpenTheEnclosingType() {
        assertEquals(new CreationSite("a.B.Inner", 12, "a.B$Inner.run(B.java:12)"), CreationSite.parse("a.B$Inner.run(B.java:12)").orElseThrow());
        assertEquals("a.B", CreationSite.parse("a.B$1.run(B.java:20)").orElseThrow().type());
        assertEquals("a.B", CreationSite.parse("a.B.lambda$main$0(B.java:7)").orElseThrow().type());
        assertEquals("a.B", CreationSite.parse("app//a.B.main(B.java:7)").orElseThrow().type());
    }

    @Test
    void aFrameWithoutALineHasNoSite() {
        assertEquals(Optional.empty(), CreationSite.parse("a.B.main(Native Method)"));
        assertEquals(Optional.empty(), CreationSite.parse("a.B.main(Unknown Source)"));
        assertTrue(CreationSite.of(Fixtures.world(0)).isEmpty(), "a predefined handle has no creation site");
    }
}
