package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.FaultSvg;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;

/** {@code mpilens hostinfo}: hosts with their launcher daemons and ranks, UP/PARTIAL/DOWN. */
@Command(name = "hostinfo", mixinStandardHelpOptions = true,
        description = {"Show the job's hosts with their launcher daemons and ranks: UP, PARTIAL or DOWN.",
            "Launcher daemons: mpirun, orted, MPJ's daemon. Rank states: OK, JOINING, UNAVAILABLE (no answer in"
                + " time), FAILED (dead, with evidence), FINALIZED.",
            PostMortemFaultCommand.TARGETS})
final class HostinfoCommand extends PostMortemFaultCommand {
    @Override
    Function<JobModel, String> picture() {
        return FaultSvg::hostinfo;
    }

    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        return boxes.hostinfo(m);
    }

    @Override
    String json(JobModel m) {
        return FaultJson.model(m, false, true);
    }
}
