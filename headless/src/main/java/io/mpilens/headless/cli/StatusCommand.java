package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.HandleTable;
import io.mpilens.headless.text.Words;
import java.io.IOException;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code mpilens status}: the job's status word ({@link StatusWord}) with its reasons, and the word
 * as the exit code, so that a batch script can branch on it. A failure to read anything at all
 * exits with 64 or more, outside the word's 0..31.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Print the job's status word (Code_Aster's bits) with its reasons, and exit with it.",
            "1 AL_PR0 alarm on rank 0, 2 AL_OTH alarm on another rank, 4 ER_PR0 error on rank 0, 8 ER_OTH error on"
                + " another rank, 16 UN_OTH status of a rank undefined (rank 0 included); OR-ed together, 0 OK.",
            "Errors: a rank FAILED, an MPI exception raised to the application, a request pending on a FAILED"
                + " peer. Alarms: a rank that did not answer in time while its process runs, the agent's lost events,"
                + " orphans or leaked handles that grow (only with --interval: one look cannot tell)."
                + " Undefined: a rank that did not answer and of which nothing else is known (its host did not answer).",
            PostMortemFaultCommand.TARGETS},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:OK", "1-31:the word: the bits above, OR-ed (e.g. 8: ER_OTH, 12: ER_PR0+ER_OTH)",
            "64:usage error", "66:nothing could be read: no such job, no rank of it found, no dump readable, a DUMP"
                + " that does not exist", "70:internal failure"})
final class StatusCommand extends FaultCommand {
    static final String NAME = "status";
    /** No word: a usage error (sysexits' EX_USAGE), outside the word's 0..31. */
    static final int EXIT_NO_WORD_USAGE = 64;
    /** No word: nothing to read (EX_NOINPUT). */
    static final int EXIT_NO_WORD_INPUT = 66;
    /** No word: an internal failure (EX_SOFTWARE). */
    static final int EXIT_NO_WORD_INTERNAL = 70;

    @Parameters(arity = "0..*", paramLabel = "DUMP", description = "Heap dumps of the job's rank JVMs (one each)"
            + " instead of --job/--attach: the word they recorded (a rank without a dump is undefined).")
    List<Path> dumps;

    @Option(names = "--wait-deadline", description = "Give every rank read here its whole --timeout (to connect,"
            + " then to read) before it counts as not answering, instead of the others' answer time + 20%% (at least 1 s).")
    boolean waitDeadline;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "Look at the job twice, SECONDS apart, and"
            + " print the second look: a rank whose orphans or leaked handles grew between the two is an alarm (without"
            + " --interval that cannot be judged). Not with heap dumps (one look).")
    Double intervalSeconds;

    @Override
    List<Path> dumps() {
        return dumps;
    }

    @Override
    public Integer call() throws Exception {
        if (intervalSeconds != null) {
            if (!(intervalSeconds > 0) || intervalSeconds > 3600) {
                throw new ParameterException(spec.commandLine(), "--interval must be between 0 and 3600 seconds, not "
                        + intervalSeconds);
            }
            if (dumps != null && !dumps.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--interval needs a running job (--job or --attach):"
                        + " heap dumps are one look, growth needs two");
            }
        }
        int code = super.call();
        if (printed == null) return code == MpiLensCli.EXIT_INTERNAL ? EXIT_NO_WORD_INTERNAL : EXIT_NO_WORD_INPUT;
        return printed.status().bits();
    }

    /** With {@code --interval}: the second look, whose word has the growth since the first. */
    @Override
    JobModel lookAgain(JobModel first) throws IOException {
        if (intervalSeconds == null) return first;
        try {
            Thread.sleep(Math.round(intervalSeconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return first;
        }
        return observer.observe();
    }

    @Override
    JobObserver configure(JobObserver o) {
        if (intervalSeconds != null) o.judgingGrowth();
        return waitDeadline ? o.withWholeDeadline() : o;
    }

    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        return lines(boxes, m);
    }

    /**
     * The header, {@code status  ER_OTH (8): rank 2 FAILED}, then each reason under its bit's name
     * with its evidence below it, wrapped at 80 columns.
     */
    static List<String> lines(FaultBoxes boxes, JobModel m) {
        StatusWord w = m.status();
        List<String> out = new ArrayList<>();
        out.add(FaultBoxes.cut("job " + m.job() + "  " + m.processes().stream().mapToInt(r -> r.rank()).distinct().count()
                + " ranks  " + m.at().truncatedTo(ChronoUnit.SECONDS)));
        out.add(boxes.statusLine(w));
        for (StatusWord.Reason r : w.reasons()) {
            out.add(FaultBoxes.cut(String.format("  %-6s  %s", StatusWord.name(r.bit()), r.brief())));
            out.addAll(wrapped(r.detail(), INDENT));
        }
        return out;
    }

    private static final String INDENT = " ".repeat(10);

    /** {@code text} in lines of at most 80 columns, each starting with {@code indent}, broken at spaces. */
    static List<String> wrapped(String text, String indent) {
        if (text == null || text.isBlank()) return new ArrayList<>();
        List<String> out = Words.wrap(indent, indent, text.trim().split("\\s+"), HandleTable.WIDTH);
        out.set(out.size() - 1, FaultBoxes.cut(out.get(out.size() - 1)));
        return out;
    }

    @Override
    String json(JobModel m) {
        return FaultJson.model(m, false, false);
    }
}
