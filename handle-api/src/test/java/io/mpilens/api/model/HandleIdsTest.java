package io.mpilens.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.registry.RegistryDecoder;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandleIdsTest {
    @Test
    void aRingRequestReadsAsRAndItsCreationSequence() {
        assertEquals(1099511627778L, RegistryDecoder.ringRequestId(2));
        assertEquals("r2", HandleIds.format(1099511627778L));
        assertEquals("#r2", HandleIds.label(1099511627778L));
        assertEquals("r1", HandleIds.format(RegistryDecoder.ringRequestId(1)));
        assertEquals("r4831025", HandleIds.format(RegistryDecoder.ringRequestId(4831025)));
        assertTrue(HandleIds.inRing(RegistryDecoder.ringRequestId(1)));
    }

    @Test
    void aRegistryIdReadsAsItsNumber() {
        assertEquals("41", HandleIds.format(41));
        assertEquals("#41", HandleIds.label(41));
        // the base itself is no request of the ring (sequences start at 1)
        assertFalse(HandleIds.inRing(HandleIds.RING_BASE));
        assertEquals(Long.toString(HandleIds.RING_BASE), HandleIds.format(HandleIds.RING_BASE));
    }

    @Test
    void everyFormShownOrPrintedParsesBackToTheId() {
        assertEquals(1099511627778L, HandleIds.parse("r2"));
        assertEquals(1099511627778L, HandleIds.parse("#r2"));
        assertEquals(1099511627778L, HandleIds.parse(" R2 "));
        assertEquals(1099511627778L, HandleIds.parse("1099511627778")); // the full id of --json
        assertEquals(41, HandleIds.parse("41"));
        assertEquals(41, HandleIds.parse("#41"));
        for (long id : new long[] {1, 41, 65_535, HandleIds.RING_BASE - 1, HandleIds.RING_BASE + 1,
            RegistryDecoder.ringRequestId(123_456_789), Long.MAX_VALUE}) {
            assertEquals(id, HandleIds.parse(HandleIds.format(id)), HandleIds.format(id));
            assertEquals(id, HandleIds.parse(HandleIds.label(id)), HandleIds.label(id));
        }
    }

    @Test
    void theShortFormsOfASnapshotsIdsAreAllDifferent() {
        // registry ids and ring ids side by side, as one rank's snapshot has them
        Set<String> shown = new HashSet<>();
        for (long id = 1; id <= 5000; id++) {
            assertTrue(shown.add(HandleIds.format(id)), "registry id " + id);
            assertTrue(shown.add(HandleIds.format(RegistryDecoder.ringRequestId(id))), "ring sequence " + id);
        }
    }

    @Test
    void textThatIsNoIdIsRefusedNamingItAndTheFormsAccepted() {
        for (String bad : new String[] {"", "#", "r", "r0", "0", "-3", "r-2", "x2", "2r", "r 2", "12a", "#r2x",
            "99999999999999999999", "r9223372036854775807"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HandleIds.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("'" + bad + "' is not a handle id"), e.getMessage());
            assertTrue(e.getMessage().contains("r2"), e.getMessage());
            assertEquals(-1, HandleIds.parseOrNone(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> HandleIds.parse(null));
    }
}
