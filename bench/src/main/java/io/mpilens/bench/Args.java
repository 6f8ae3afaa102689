package io.mpilens.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --name value} options of a harness; an unknown or malformed one ends the run with the usage. */
final class Args {
    private final Map<String, String> given = new LinkedHashMap<>();
    private final String usage;

    Args(String[] args, String usage) {
        this.usage = usage;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println(usage);
                System.exit(0);
            }
            if (!a.startsWith("--") || i + 1 == args.length) fail("expected --name value, got '" + a + "'");
            given.put(a, args[++i]);
        }
    }

    String string(String name, String fallback) {
        String v = given.remove(name);
        return v == null ? fallback : v;
    }

    int integer(String name, int fallback) {
        String v = given.remove(name);
        if (v == null) return fallback;
        try {
            int n = Integer.parseInt(v.replace("_", ""));
            if (n < 0) fail(name + " must not be negative, got " + v);
            return n;
        } catch (NumberFormatException e) {
            fail(name + " takes a whole number, got '" + v + "'");
            return fallback;
        }
    }

    /** Call after reading every option: anything left over was not understood. */
    void done() {
        if (!given.isEmpty()) fail("unknown option " + given.keySet().iterator().next());
    }

    private void fail(String why) {
        System.err.println(why);
        System.err.println(usage);
        System.exit(2);
    }
}
