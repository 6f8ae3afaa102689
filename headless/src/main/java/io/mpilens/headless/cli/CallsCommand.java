package io.mpilens.headless.cli;

import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.JobObserver;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.FaultBoxes;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mpilens calls}: the MPI call each thread of each rank is inside, flagged when it can never complete. */
@Command(name = "calls", mixinStandardHelpOptions = true,
        description = {"Show the MPI call each thread of each rank is inside; flag those that never complete.",
            "Read from the threads' stack frames. NEVER COMPLETES: a collective on a communicator with a FAILED"
                + " member, a send/receive to or from a FAILED peer."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank answered", "1:internal failure", "2:usage error, or no such job",
            "3:some ranks did not answer (UNAVAILABLE; one line each on stderr)"})
final class CallsCommand extends FaultCommand {
    @Option(names = "--suspend", description = "Suspend each rank's whole VM while reading it (one consistent"
            + " picture); by default each thread is suspended only while its own frames are read.")
    boolean suspend;

    @Override
    JobObserver configure(JobObserver o) {
        return o.withFrames(suspend);
    }

    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        return boxes.calls(m, InFlightCalls.of(m, observer.frames()));
    }

    @Override
    String json(JobModel m) {
        return FaultJson.calls(m, InFlightCalls.of(m, observer.frames()));
    }
}
