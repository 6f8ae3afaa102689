package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Strings read whole when they have no escape, and as before when they do. */
class JsonReaderTest {
    @Test
    void stringsWithAndWithoutEscapes() throws IOException {
        assertEquals(List.of("", "plain", "a\"b", "tab\there", "x\\", "\u00e9t\u00e9 \u2603", "/", "0-3,5,7-9"),
                JsonReader.parse("[\"\",\"plain\",\"a\\\"b\",\"tab\\there\",\"x\\\\\",\"\\u00e9t\u00e9 \\u2603\",\"\\/\",\"0-3,5,7-9\"]"));
        assertEquals(Map.of("k\"ey", "v"), JsonReader.parse("{\"k\\\"ey\":\"v\"}"));
        String written = new JsonWriter().beginObject().field("name", "line\nbreak \"quoted\" back\\slash \u0001").endObject().toString();
        assertEquals(Map.of("name", "line\nbreak \"quoted\" back\\slash \u0001"), JsonReader.parse(written));
    }

    @Test
    void anUnterminatedStringSaysWhere() {
        IOException plain = assertThrows(IOException.class, () -> JsonReader.parse("[\"abc"));
        assertTrue(plain.getMessage().contains("the end of a string at offset 5"), plain.getMessage());
        IOException escaped = assertThrows(IOException.class, () -> JsonReader.parse("[\"ab\\"));
        assertTrue(escaped.getMessage().contains("an escape at offset 5"), escaped.getMessage());
    }
}
