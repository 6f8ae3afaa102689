package io.mpilens.agent.job;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * This process's environment as it started ({@code /proc/self/environ}), read once; where that
 * cannot be read, {@link System#getenv()}. Not {@code System.getenv} first: its first call takes
 * the JVM's one snapshot of the environment, so calling it from {@code premain} would fix what the
 * application's own first call sees at the agent's moment instead of the application's (a binding
 * may set variables while {@code MPI_Init} runs), and it cost ≈ 1.4 ms of start-up
 * (docs/performance.md, start-up).
 */
public final class Environment {
    /** {@code /proc/self/environ} of an environment this large or larger is not read: System.getenv then. */
    private static final int LIMIT = 4 << 20;
    private static volatile Map<String, String> env;

    private Environment() {
    }

    /** The variable's value, or null. */
    public static String get(String name) {
        return map().get(name);
    }

    /** Every variable (unmodifiable). */
    public static Map<String, String> map() {
        Map<String, String> e = env;
        if (e == null) env = e = read();
        return e;
    }

    private static Map<String, String> read() {
        byte[] b;
        try (InputStream in = new FileInputStream("/proc/self/environ")) {
            b = in.readNBytes(LIMIT);
            if (b.length >= LIMIT) return System.getenv();
        } catch (IOException | RuntimeException e) {
            return System.getenv();
        }
        Charset cs = charset();
        Map<String, String> m = new HashMap<>();
        int from = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i < b.length && b[i] != 0) continue;
            int eq = -1;
            for (int j = from; j < i; j++) {
                if (b[j] == '=') {
                    eq = j;
                    break;
                }
            }
            // the first definition counts, as for getenv(3)
            if (eq > from) m.putIfAbsent(new String(b, from, eq - from, cs), new String(b, eq + 1, i - eq - 1, cs));
            from = i + 1;
        }
        return Collections.unmodifiableMap(m);
    }

    /** How the JVM decodes the environment (its property {@code sun.jnu.encoding}), else the default. */
    private static Charset charset() {
        try {
            String name = System.getProperty("sun.jnu.encoding");
            if (name != null) return Charset.forName(name);
        } catch (RuntimeException e) {
            // the default below
        }
        return Charset.defaultCharset();
    }
}
