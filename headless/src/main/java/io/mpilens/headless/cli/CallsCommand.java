package io.mpilens.headless.cli;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.WaitForPicture;
import io.mpilens.headless.text.WaitForSvg;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code mpilens calls}: the MPI call each thread of each rank is inside, flagged when it can
 * never complete; below, the ranks that cannot progress (a wait-for analysis), and with
 * {@code --confirm} whether anything moved over a second look.
 */
@Command(name = "calls", mixinStandardHelpOptions = true,
        description = {"Show the MPI call each thread of each rank is inside, and the ranks that cannot progress.",
            "Read from the threads' stack frames. NEVER COMPLETES: a collective on a communicator with a FAILED"
                + " member, a send/receive to or from a FAILED peer. A deadlock is only called one after"
                + " --confirm: two looks, and no blocking MPI call returned in between. Assumes threads"
                + " outside MPI calls will not send what a stuck thread waits for."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank answered", "1:internal failure", "2:usage error, or no such job",
            "3:some ranks did not answer (UNAVAILABLE; one line each on stderr)"})
final class CallsCommand extends FaultCommand {
    @Option(names = "--suspend", description = "Suspend each rank's whole VM while reading it (one consistent"
            + " picture); by default each thread is suspended only while its own frames are read.")
    boolean suspend;

    @Option(names = "--confirm", paramLabel = "SECONDS", defaultValue = "0",
            description = "Look twice, SECONDS apart: ranks stuck at both looks in the same calls, whose agents"
                    + " counted no blocking MPI call returning in between, are a DEADLOCK (default: one look).")
    double confirmSeconds;

    @Option(names = "--svg", paramLabel = "FILE", description = "Also draw the wait-for picture into FILE (SVG): ranks"
            + " as boxes, 'waits for' arrows labelled with the calls, coloured by the verdict.")
    Path svgFile;

    private List<InFlightCall> calls;
    private WaitFor.Analysis analysis;
    private WaitFor.Looks looks = WaitFor.Looks.ONE;

    @Override
    JobObserver configure(JobObserver o) {
        if (confirmSeconds < 0 || confirmSeconds > 3600 || Double.isNaN(confirmSeconds)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--confirm: give the seconds between the two looks, from 0 (one look) to 3600");
        }
        return o.withFrames(suspend);
    }

    @Override
    JobModel lookAgain(JobModel first) throws IOException {
        analyse(first);
        if (confirmSeconds <= 0 || !analysis.any()) return first;
        WaitFor.Analysis before = analysis;
        long start = System.nanoTime();
        try {
            Thread.sleep((long) (confirmSeconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted between the two looks");
        }
        JobModel second = observer.observe();
        analyse(second);
        double apart = (System.nanoTime() - start) / 1e9;
        looks = WaitFor.compare(before, analysis, apart);
        return second;
    }

    private void analyse(JobModel m) {
        calls = InFlightCalls.of(m, observer.frames());
        analysis = WaitFor.of(m, calls, observer.frames().keySet());
    }

    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        if (calls == null) analyse(m);
        List<String> out = new ArrayList<>(boxes.calls(m, calls));
        out.addAll(boxes.waitFor(analysis, looks));
        if (confirmSeconds > 0 && !analysis.any()) out.add("no rank is stuck at this look: nothing to confirm");
        return out;
    }

    @Override
    Path svgFile() {
        return svgFile;
    }

    @Override
    Function<JobModel, String> picture() {
        return m -> {
            if (calls == null) analyse(m);
            return WaitForSvg.svg(WaitForPicture.of(m, calls, analysis, looks, FaultBoxes.CONFIRM_HINT));
        };
    }

    @Override
    String json(JobModel m) {
        if (calls == null) analyse(m);
        return FaultJson.calls(m, calls, analysis, looks);
    }
}
