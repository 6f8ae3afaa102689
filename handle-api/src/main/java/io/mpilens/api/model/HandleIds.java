package io.mpilens.api.model;

/**
 * Handle ids as people read and type them. A registry id is its number ({@code 41}); a request
 * found in the agent's request ring has the id {@link #RING_BASE} (2^40) + its creation sequence
 * number, which the text shows as {@code r} + that sequence ({@code 1099511627778} is {@code r2}):
 * the number its wrapper carries in {@code mpilens$seq}, so a debugger's Variables view and
 * mpilens agree. A pure function of the id, so it is stable across reads and unique wherever the
 * id is (registry ids stay far below 2^40). JSON keeps the full id.
 */
public final class HandleIds {
    /** Ids from here up are requests of the ring: this plus their creation sequence number. */
    public static final long RING_BASE = 1L << 40;

    private HandleIds() {
    }

    /** Whether {@code id} names a request of the ring. */
    public static boolean inRing(long id) {
        return id > RING_BASE;
    }

    /** {@code 41} for a registry id, {@code r2} for the ring's request of sequence 2. */
    public static String format(long id) {
        return inRing(id) ? "r" + (id - RING_BASE) : Long.toString(id);
    }

    /** {@code #41}, {@code #r2}: an id where the text names a handle among other words. */
    public static String label(long id) {
        return "#" + format(id);
    }

    /**
     * The id {@code text} names: {@code 41}, {@code #41}, {@code r2}, {@code #r2} (any case, blanks
     * around it ignored), or the full id ({@code 1099511627778}, as JSON has it).
     *
     * @throws IllegalArgumentException naming the text and the forms accepted
     */
    public static long parse(String text) {
        String s = text == null ? "" : text.trim();
        if (s.startsWith("#")) s = s.substring(1);
        boolean ring = s.startsWith("r") || s.startsWith("R");
        String digits = ring ? s.substring(1) : s;
        long n = -1;
        if (!digits.isEmpty() && digits.length() <= 19 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                n = Long.parseLong(digits);
            } catch (NumberFormatException e) {
                n = -1; // beyond a long
            }
        }
        if (n <= 0 || (ring && n > Long.MAX_VALUE - RING_BASE)) {
            throw new IllegalArgumentException("'" + text + "' is not a handle id: give a registry id (41 or #41) or a"
                    + " request of the ring (r2 or #r2), as the text output shows them, or the full id of --json");
        }
        return ring ? RING_BASE + n : n;
    }

    /** {@link #parse}, or -1 when {@code text} is not an id (a search box's text, say). */
    public static long parseOrNone(String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }
}
