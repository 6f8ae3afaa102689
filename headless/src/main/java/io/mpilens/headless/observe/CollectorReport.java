package io.mpilens.headless.observe;

import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the collector on one host ({@code mpilens collect}) sends back to the front end: this
 * host's job records (each with whether its process runs, which only this host can tell), and for
 * one job its ranks as observed here over loopback JDWP (state and evidence by the deadline rule)
 * and the launcher daemons that started them. Never a debugger connection: the front end merges
 * these into the same model as the ranks it reads itself.
 *
 * <p>On the wire ({@code json.CollectorJson} writes it): JSON lines, one flat object each, its
 * {@value #KIND} first: {@code collector} (schema, host, job), {@code record} (a job record's fields as
 * the agent writes them, plus {@code running} and {@code file}), {@code rank}, {@code daemon}, {@code refused};
 * and two that nest: {@code snapshot} (right after the {@code rank} line of a rank that answered: its
 * {@code ProcessSnapshot} as an element of {@code mpilens/1}'s {@code processes}) and {@code frames}
 * (a rank's thread frames, when asked for).
 */
public record CollectorReport(String host, String job, List<Record> records, List<RankStatus> ranks,
                              List<HostView.Daemon> daemons, List<String> refused,
                              Map<Integer, List<BindingFrame>> frames) {
    /** What collectors write: /2 may send member lists as ranges ({@code memberRanges}). */
    public static final String SCHEMA = "mpilens-collect/2";
    /**
     * What an older collector writes (member lists as arrays only): still read. A front end older
     * than /2 refuses /2 by its schema instead of reading ranges it does not know as no members.
     */
    static final String SCHEMA_1 = "mpilens-collect/1";
    public static final String KIND = "kind";

    /** A report without thread frames (none asked for). */
    public CollectorReport(String host, String job, List<Record> records, List<RankStatus> ranks,
                           List<HostView.Daemon> daemons, List<String> refused) {
        this(host, job, records, ranks, daemons, refused, Map.of());
    }

    /** A job record of the collector's host and whether its process still runs there (null: cannot tell). */
    public record Record(JobRecord record, Boolean running) {
    }

    /**
     * The lines that nest objects ({@code snapshot}, {@code frames}: {@code json.CollectorJson} reads
     * them, a layer above this one): one such line read into the report being built, false when
     * {@code line} is not one of them.
     */
    public interface NestedLines {
        boolean read(String line, List<RankStatus> ranks, Map<Integer, List<BindingFrame>> frames) throws IOException;
    }

    /** Reads a collector's lines; fails naming the first line it cannot read. */
    public static CollectorReport parse(List<String> lines, NestedLines nested) throws IOException {
        String host = null, job = null;
        List<Record> records = new ArrayList<>();
        List<RankStatus> ranks = new ArrayList<>();
        List<HostView.Daemon> daemons = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        Map<Integer, List<BindingFrame>> frames = new HashMap<>();
        for (String line : lines) {
            if (line.isBlank()) continue;
            // nested objects: not for the flat reader (their own "kind" fields would shadow the line's)
            try {
                if (nested.read(line, ranks, frames)) continue;
            } catch (IOException | RuntimeException e) {
                throw new IOException("not a collector line (" + e.getMessage() + "): " + cut(line), e);
            }
            Map<String, String> f = JobDirectory.flatFields(line);
            try {
                switch (String.valueOf(f.get(KIND))) {
                    case "collector" -> {
                        if (!SCHEMA.equals(f.get("schema")) && !SCHEMA_1.equals(f.get("schema"))) {
                            throw new IOException("schema " + f.get("schema") + ", expected " + SCHEMA + " or " + SCHEMA_1
                                    + " (mpilens of another version on that host?)");
                        }
                        host = f.get("host");
                        job = f.get("job");
                    }
                    case "record" -> records.add(new Record(JobDirectory.parse(line, Path.of(f.get("file"))),
                            f.get("running") == null ? null : Boolean.valueOf(f.get("running"))));
                    case "rank" -> ranks.add(new RankStatus(Integer.parseInt(f.get("rank")), Integer.parseInt(f.get("epoch")),
                            Long.parseLong(f.get("pid")), Long.parseLong(f.get("parentPid")), f.get("host"), f.get("address"),
                            ProcessState.valueOf(f.get("state")), f.get("evidence"), Long.parseLong(f.get("answerMillis")), null,
                            f.get("alive") == null ? null : Boolean.valueOf(f.get("alive"))));
                    case "daemon" -> daemons.add(new HostView.Daemon(Long.parseLong(f.get("pid")), f.get("command"),
                            Boolean.parseBoolean(f.get("alive"))));
                    case "refused" -> refused.add(f.get("reason"));
                    default -> throw new IOException("unknown kind " + f.get(KIND));
                }
            } catch (RuntimeException e) {
                throw new IOException("not a collector line (" + e + "): " + cut(line), e);
            } catch (IOException e) {
                throw new IOException(e.getMessage() + ": " + cut(line), e);
            }
        }
        if (host == null) throw new IOException("no collector line in its output" + (lines.isEmpty() ? " (it printed nothing)"
                : ": " + cut(lines.get(0))));
        return new CollectorReport(host, job, records, ranks, daemons, refused, Map.copyOf(frames));
    }

    private static String cut(String line) {
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }
}
