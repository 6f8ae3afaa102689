package io.mpilens.it;

import java.util.LinkedHashMap;
import java.util.Map;

/** One {@code MPILENS-EXPECT} line printed by an example: what the binding answered. */
record Expectation(int owner, String point, int line, String kind, Map<String, String> values, String text) {
    static final String PREFIX = "MPILENS-EXPECT ";

    static Expectation parse(String line) {
        int at = line.indexOf(PREFIX);
        if (at < 0) throw new IllegalArgumentException("not an expectation: " + line);
        String text = line.substring(at + PREFIX.length()).trim();
        Map<String, String> values = new LinkedHashMap<>();
        for (String part : text.split(" ")) {
            int eq = part.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("bad expectation part '" + part + "' in: " + line);
            values.put(part.substring(0, eq), part.substring(eq + 1));
        }
        int owner = Integer.parseInt(values.remove("owner"));
        String point = values.remove("point");
        int lineNo = Integer.parseInt(values.remove("line"));
        String kind = values.remove("kind");
        return new Expectation(owner, point, lineNo, kind, values, text);
    }
}
