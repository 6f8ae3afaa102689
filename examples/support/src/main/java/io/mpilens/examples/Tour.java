package io.mpilens.examples;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The protocol between the example programs and whoever watches them (tests, demo):
 * <ul>
 *   <li>{@code MPILENS-EXPECT owner=R point=P line=N kind=K key=value ...}: what the binding
 *       itself answered about the handle created on source line N, and the lifecycle MPI
 *       semantics require at pause P;</li>
 *   <li>{@code MPILENS-PAUSE owner=R point=P}: the rank waits at P until the file
 *       {@code P.go} appears in the directory named by {@code -Dmpilens.control} or
 *       {@code $MPILENS_CONTROL} (no waiting when neither is set).</li>
 * </ul>
 * Values never contain spaces; lists are comma-separated.
 */
public final class Tour {
    private final int owner;
    private final String control;

    public Tour(int owner) {
        this.owner = owner;
        String c = System.getProperty("mpilens.control");
        if (c == null) c = System.getenv("MPILENS_CONTROL");
        this.control = c;
    }

    /** Source line of the caller: write it on the same line as the creation it labels. */
    public static int here() {
        return new Throwable().getStackTrace()[1].getLineNumber();
    }

    public Expectation expect(String point, int line, String kind) {
        return new Expectation(point, line, kind);
    }

    public void pause(String point) {
        synchronized (System.out) {
            System.out.println("MPILENS-PAUSE owner=" + owner + " point=" + point);
            System.out.flush();
        }
        if (control == null) return;
        File go = new File(control, point + ".go");
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (!go.exists() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Makes garbage collection of dropped wrappers likely, and gives reference processing time. */
    /**
     * Offsets (in send order) as intervals: {@code 0-4,8-18} for 0,1,2,3,8,...,17; a new interval
     * starts wherever the next offset is not the one after the last.
     */
    public static String intervals(int[] offsets) {
        StringBuilder s = new StringBuilder();
        int i = 0;
        while (i < offsets.length) {
            int j = i;
            while (j + 1 < offsets.length && offsets[j + 1] == offsets[j] + 1) j++;
            if (s.length() > 0) s.append(',');
            s.append(offsets[i]).append('-').append(offsets[j] + 1);
            i = j + 1;
        }
        return s.toString();
    }

    public static void collectGarbage() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public final class Expectation {
        private final List<String> parts = new ArrayList<>();

        Expectation(String point, int line, String kind) {
            parts.add("owner=" + owner);
            parts.add("point=" + point);
            parts.add("line=" + line);
            parts.add("kind=" + kind);
        }

        public Expectation with(String key, Object value) {
            parts.add(key + "=" + format(value));
            return this;
        }

        public void print() {
            synchronized (System.out) {
                System.out.println("MPILENS-EXPECT " + String.join(" ", parts));
                System.out.flush();
            }
        }

        private String format(Object v) {
            if (v instanceof int[]) {
                StringBuilder b = new StringBuilder();
                for (int x : (int[]) v) b.append(b.length() == 0 ? "" : ",").append(x);
                return b.toString();
            }
            if (v instanceof boolean[]) {
                StringBuilder b = new StringBuilder();
                for (boolean x : (boolean[]) v) b.append(b.length() == 0 ? "" : ",").append(x);
                return b.toString();
            }
            if (v instanceof Long) return "0x" + Long.toHexString((Long) v).toLowerCase(Locale.ROOT);
            return String.valueOf(v).replace(' ', '_');
        }
    }
}
