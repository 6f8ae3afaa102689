package io.mpilens.plugin.debug;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mpilens.headless.jdi.JdwpAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttachToMpiJobHandlerTest {
    @Test
    void addressesAreSeparatedByCommasOrSpaces() {
        assertEquals(List.of(new JdwpAddress("127.0.0.1", 40001), new JdwpAddress("127.0.0.1", 40002),
                new JdwpAddress("node-b", 5005)),
                AttachToMpiJobHandler.parse(" 127.0.0.1:40001, 127.0.0.1:40002\nnode-b:5005 "));
    }

    @Test
    void aMalformedAddressIsRefusedWithAMessage() {
        assertThrows(IllegalArgumentException.class, () -> AttachToMpiJobHandler.parse("127.0.0.1"));
    }
}
