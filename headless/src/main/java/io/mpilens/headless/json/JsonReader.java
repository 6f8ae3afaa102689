package io.mpilens.headless.json;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON parser for what mpilens itself writes ({@link JsonWriter}): objects become
 * {@code Map<String, Object>} (in order), arrays {@code List<Object>}, numbers {@code Long} (or
 * {@code Double} with a fraction or exponent), strings, booleans and {@code null}.
 */
public final class JsonReader {
    private final String s;
    private int i;

    private JsonReader(String s) {
        this.s = s;
    }

    /** The one value {@code text} holds; fails naming the offset of what it cannot read. */
    public static Object parse(String text) throws IOException {
        JsonReader r = new JsonReader(text);
        Object v = r.value();
        r.space();
        if (r.i != text.length()) throw r.error("text after the value");
        return v;
    }

    private Object value() throws IOException {
        space();
        if (i >= s.length()) throw error("end of text");
        char c = s.charAt(i);
        switch (c) {
            case '{': {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (peek('}')) return m;
                while (true) {
                    space();
                    if (i >= s.length() || s.charAt(i) != '"') throw error("a name");
                    String name = string();
                    space();
                    expect(':');
                    m.put(name, value());
                    space();
                    if (peek('}')) return m;
                    expect(',');
                }
            }
            case '[': {
                i++;
                List<Object> l = new ArrayList<>();
                space();
                if (peek(']')) return l;
                while (true) {
                    l.add(value());
                    space();
                    if (peek(']')) return l;
                    expect(',');
                }
            }
            case '"':
                return string();
            default:
                if (s.startsWith("true", i)) {
                    i += 4;
                    return Boolean.TRUE;
                }
                if (s.startsWith("false", i)) {
                    i += 5;
                    return Boolean.FALSE;
                }
                if (s.startsWith("null", i)) {
                    i += 4;
                    return null;
                }
                return number();
        }
    }

    private Object number() throws IOException {
        int start = i;
        boolean fraction = false;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '.' || c == 'e' || c == 'E') fraction = true;
            else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) break;
            i++;
        }
        if (start == i) throw error("a value");
        String t = s.substring(start, i);
        try {
            return fraction ? (Object) Double.valueOf(t) : (Object) Long.valueOf(t);
        } catch (NumberFormatException e) {
            throw error("a number, not '" + t + "'");
        }
    }

    private String string() throws IOException {
        i++; // the opening quote
        int start = i;
        // most strings have no escape: one substring, not a character at a time
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"') return s.substring(start, i++);
            if (c == '\\') break;
            i++;
        }
        StringBuilder b = new StringBuilder().append(s, start, i);
        while (true) {
            if (i >= s.length()) throw error("the end of a string");
            char c = s.charAt(i++);
            if (c == '"') return b.toString();
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (i >= s.length()) throw error("an escape");
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    if (i + 4 > s.length()) throw error("four hex digits");
                    try {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("four hex digits");
                    }
                    i += 4;
                }
                default -> b.append(e); // \" \\ \/
            }
        }
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    private boolean peek(char c) {
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(char c) throws IOException {
        if (!peek(c)) throw error("'" + c + "'");
    }

    private IOException error(String expected) {
        return new IOException("JSON: expected " + expected + " at offset " + i);
    }
}
