package io.mpilens.headless.text;

import java.util.List;
import java.util.function.IntFunction;

/**
 * Lists of COMM_WORLD ranks, short enough to read at 64 or 1,024 ranks: a run of three or more
 * consecutive ranks (ascending, with the same mark) is written {@code 3-63}, or {@code 4-6x} when
 * each of them carries the mark {@code x}; shorter runs are written rank by rank. The order of
 * the list is kept (a communicator's members are in its own rank order).
 */
public final class RankRanges {
    private RankRanges() {
    }

    /** {@code 0 1 2x 3-63} for the ranks 0…63 with 2 marked {@code x} ({@code mark}: "" for none). */
    public static String format(List<Integer> ranks, IntFunction<String> mark, String separator) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < ranks.size()) {
            int first = ranks.get(i);
            String m = mark.apply(first);
            int j = i + 1;
            while (j < ranks.size() && ranks.get(j) == ranks.get(j - 1) + 1 && mark.apply(ranks.get(j)).equals(m)) j++;
            if (b.length() > 0) b.append(separator);
            if (j - i >= 3) {
                b.append(first).append('-').append(ranks.get(j - 1)).append(m);
            } else {
                for (int k = i; k < j; k++) {
                    if (k > i) b.append(separator);
                    b.append(ranks.get(k)).append(m);
                }
            }
            i = j;
        }
        return b.toString();
    }

    /** {@code 1,3-63}: unmarked ranks. */
    public static String format(List<Integer> ranks, String separator) {
        return format(ranks, r -> "", separator);
    }

    private static final java.util.regex.Pattern RANK_OR_RANGE = java.util.regex.Pattern.compile("(\\d{1,9})(?:-(\\d{1,9}))?");

    /**
     * The ranks of a list written as {@code 0,3-5} (commas or spaces, ranges inclusive), in the
     * order given, without repeats; an {@link IllegalArgumentException} naming the part that is
     * not a rank or a range.
     */
    public static java.util.Set<Integer> parse(String text) {
        java.util.Set<Integer> out = new java.util.LinkedHashSet<>();
        for (String part : text.trim().split("[,\\s]+")) {
            if (part.isEmpty()) continue;
            java.util.regex.Matcher m = RANK_OR_RANGE.matcher(part);
            if (!m.matches()) throw new IllegalArgumentException("'" + part + "' is not a rank or a range of ranks (e.g. 0,3-5)");
            int from = Integer.parseInt(m.group(1));
            int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
            if (to < from) throw new IllegalArgumentException("'" + part + "' is an empty range: write the lower rank first");
            if (to - from > 1_000_000) throw new IllegalArgumentException("'" + part + "' is more than a million ranks");
            for (int r = from; r <= to; r++) out.add(r);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no rank given (e.g. 0,3-5)");
        return out;
    }

    /** A rank list longer than this is not written inline: see {@link #who} and {@link #listedApart}. */
    static final int INLINE = 24;

    /**
     * How a line names the ranks it is about: {@code rank 5}, {@code ranks 0 1 3-63}, or, when
     * the list is longer than {@link #INLINE} columns, {@code 128 ranks} (then the list follows
     * on lines of its own: {@link #listedApart}). {@code ranks}: distinct, ascending.
     */
    public static String who(List<Integer> ranks) {
        String list = format(ranks, " ");
        return ranks.size() == 1 ? "rank " + list : list.length() > INLINE ? ranks.size() + " ranks" : "ranks " + list;
    }

    /** The lines that list the ranks {@link #who} did not write inline (none when it did), indented, at most {@code width} columns. */
    public static List<String> listedApart(List<Integer> ranks, int width) {
        if (ranks.size() <= 1 || format(ranks, " ").length() <= INLINE) return List.of();
        return Words.wrap("    ranks", "    ", format(ranks, " ").split(" "), width);
    }
}
