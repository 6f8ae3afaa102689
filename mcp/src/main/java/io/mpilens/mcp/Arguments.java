package io.mpilens.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** A tool call's arguments, read with a message naming the argument and what it should be when one is wrong. */
final class Arguments {
    private final String tool;
    private final Map<String, Object> given;

    Arguments(String tool, Map<String, Object> given) {
        this.tool = tool;
        this.given = given == null ? Map.of() : given;
    }

    /** A mistake in the arguments: the call's answer is an error with this message, and the server goes on. */
    static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    /** Fails when an argument is not one of {@code known}. */
    void onlyThese(Set<String> known) {
        for (String name : given.keySet()) {
            if (!known.contains(name)) {
                throw new Invalid(tool + ": unknown argument '" + name + "'; it takes " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    boolean has(String name) {
        return given.get(name) != null;
    }

    String string(String name) {
        Object v = given.get(name);
        if (v == null) return null;
        if (!(v instanceof String s)) throw new Invalid(tool + ": " + name + " must be a string, not " + describe(v));
        if (s.isBlank()) throw new Invalid(tool + ": " + name + " is empty");
        return s;
    }

    List<String> strings(String name) {
        Object v = given.get(name);
        if (v == null) return null;
        if (!(v instanceof List<?> list)) throw new Invalid(tool + ": " + name + " must be an array of strings, not " + describe(v));
        List<String> out = new ArrayList<>();
        for (Object e : list) {
            if (!(e instanceof String s) || s.isBlank()) {
                throw new Invalid(tool + ": " + name + " must be an array of non-empty strings; it holds " + describe(e));
            }
            out.add(s);
        }
        if (out.isEmpty()) throw new Invalid(tool + ": " + name + " is an empty array");
        return out;
    }

    Double number(String name) {
        Object v = given.get(name);
        if (v == null) return null;
        if (!(v instanceof Number n)) throw new Invalid(tool + ": " + name + " must be a number, not " + describe(v));
        return n.doubleValue();
    }

    boolean flag(String name) {
        Object v = given.get(name);
        if (v == null) return false;
        if (!(v instanceof Boolean b)) throw new Invalid(tool + ": " + name + " must be true or false, not " + describe(v));
        return b;
    }

    private static String describe(Object v) {
        if (v == null) return "null";
        String type = v instanceof String ? "string" : v instanceof Number ? "number" : v instanceof Boolean ? "boolean"
                : v instanceof List ? "array" : v instanceof Map ? "object" : v.getClass().getSimpleName();
        String text = String.valueOf(v);
        return type + " " + (text.length() > 40 ? text.substring(0, 40) + "..." : text);
    }
}
