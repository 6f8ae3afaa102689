package io.mpilens.api.job;

/**
 * The fields of a Linux {@code /proc/<pid>/stat} line the agent and the readers need, parsed the
 * one way: {@code pid (comm) state ppid …}, where {@code comm} may hold spaces and parentheses, so
 * fields count from the last {@code ')'}. The start in clock ticks since boot (field 22) is what
 * tells one process from a later one with the same pid: unlike a start time in wall-clock terms
 * (boot time, read from {@code /proc/stat}, plus ticks), no step of the clock moves it.
 */
public final class ProcStat {
    /** Field 4 ({@code ppid}), counted from 1 as proc(5) does. */
    public static final int PPID = 4;
    /** Field 22 ({@code starttime}): clock ticks after boot. */
    public static final int START_TICKS = 22;

    private ProcStat() {
    }

    /**
     * Field {@code n} (counted from 1, as proc(5) does; 3 or more) of a {@code stat} line as a number,
     * or -1 when the line does not have it or it is not a number.
     */
    public static long field(String stat, int n) {
        if (stat == null || n < 3) return -1;
        int close = stat.lastIndexOf(')');
        if (close < 0) return -1;
        int at = close + 2; // field 3 starts after ") "
        for (int f = 3; f < n; f++) {
            at = stat.indexOf(' ', at);
            if (at < 0) return -1;
            at++;
        }
        int end = at;
        while (end < stat.length() && stat.charAt(end) >= '0' && stat.charAt(end) <= '9') end++;
        if (end == at || end - at > 18 || end < stat.length() && stat.charAt(end) != ' ' && stat.charAt(end) != '\n') return -1;
        return Long.parseLong(stat, at, end, 10);
    }

    /** Field 3 ({@code state}: R, S, D, Z, T, t, …), or 0 when the line has none. */
    public static char state(String stat) {
        if (stat == null) return 0;
        int close = stat.lastIndexOf(')');
        return close < 0 || close + 2 >= stat.length() ? 0 : stat.charAt(close + 2);
    }

    /** Field 1 ({@code pid}), or -1. */
    public static long pid(String stat) {
        if (stat == null) return -1;
        int space = stat.indexOf(' ');
        if (space <= 0 || space > 18) return -1;
        for (int i = 0; i < space; i++) if (stat.charAt(i) < '0' || stat.charAt(i) > '9') return -1;
        return Long.parseLong(stat, 0, space, 10);
    }
}
