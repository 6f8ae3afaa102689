package io.mpilens.headless.json;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Compact JSON text, written front to back. The one JSON writer of mpilens: no library, so the
 * bundle has no dependency for it and the output is exactly what the schema documents.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** Per open container: has it got an element yet. */
    private final Deque<Boolean> filled = new ArrayDeque<>();
    private boolean afterName;

    public JsonWriter beginObject() {
        beforeValue();
        out.append('{');
        filled.push(false);
        return this;
    }

    public JsonWriter endObject() {
        filled.pop();
        out.append('}');
        return this;
    }

    public JsonWriter beginArray() {
        beforeValue();
        out.append('[');
        filled.push(false);
        return this;
    }

    public JsonWriter endArray() {
        filled.pop();
        out.append(']');
        return this;
    }

    public JsonWriter name(String name) {
        separate();
        quote(name);
        out.append(':');
        afterName = true;
        return this;
    }

    public JsonWriter value(String s) {
        beforeValue();
        if (s == null) out.append("null");
        else quote(s);
        return this;
    }

    public JsonWriter value(long v) {
        beforeValue();
        out.append(v);
        return this;
    }

    public JsonWriter value(boolean v) {
        beforeValue();
        out.append(v);
        return this;
    }

    public JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private void beforeValue() {
        if (afterName) {
            afterName = false;
        } else {
            separate();
        }
    }

    private void separate() {
        if (filled.isEmpty()) return;
        if (filled.peek()) out.append(',');
        else {
            filled.pop();
            filled.push(true);
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || isLoneSurrogate(s, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /** A half of a surrogate pair without its other half cannot be encoded as UTF-8; escape it. */
    private static boolean isLoneSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        if (Character.isLowSurrogate(c)) return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        return false;
    }
}
