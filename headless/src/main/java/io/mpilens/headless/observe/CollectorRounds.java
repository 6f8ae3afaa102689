package io.mpilens.headless.observe;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines between the front end and a collector kept running from round to round
 * ({@code collect --rounds}, a {@code watch}): one rule for both ends. The front end writes a
 * {@link #request} on the collector's standard input; the collector reads it back
 * ({@link Request#parse}), prints its report and then the {@link #end} line of that round.
 */
public final class CollectorRounds {
    /** What a host name or a job id may be made of: it goes on a remote command line. */
    private static final Pattern SAFE_WORD = Pattern.compile("[A-Za-z0-9._:@%+=/,-]+");
    private static final Pattern END = Pattern.compile("\\{\"kind\":\"end\",\"round\":(\\d+)\\}");

    private CollectorRounds() {
    }

    /** Whether {@code w} is a word that may go on a remote command line as it is (a host name, a job id). */
    static boolean safeWord(String w) {
        return SAFE_WORD.matcher(w).matches();
    }

    /** The line that asks a collector started with {@code --rounds} for round {@code n}. */
    public static String request(int n, String jobId, boolean frames) {
        return "round " + n + (jobId == null ? "" : " --job " + jobId) + (jobId != null && frames ? " --frames" : "");
    }

    /** A request read back: {@code round N [--job ID] [--frames]}. */
    public record Request(int round, String jobId, boolean frames) {
        /** The request on {@code line}, null when the line is not one. */
        public static Request parse(String line) {
            String[] w = line.strip().split("\\s+");
            if (w.length < 2 || !w[0].equals("round")) return null;
            try {
                int n = Integer.parseInt(w[1]);
                String job = null;
                boolean frames = false;
                for (int i = 2; i < w.length; i++) {
                    if (w[i].equals("--job") && i + 1 < w.length && safeWord(w[i + 1])) job = w[++i];
                    else if (w[i].equals("--frames")) frames = true;
                    else return null;
                }
                return new Request(n, job, frames);
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** The line that ends a collector's answer to round {@code n}. */
    public static String end(int n) {
        return "{\"kind\":\"end\",\"round\":" + n + "}";
    }

    /** The round a line ends, or -1. */
    static int ended(String line) {
        Matcher m = END.matcher(line.strip());
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }
}
