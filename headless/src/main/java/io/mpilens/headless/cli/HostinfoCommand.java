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
            "Give --job ID, --attach HOST:PORT,... or heap dumps (one per rank JVM)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank answered (or every dump was read)", "1:internal failure",
            "2:usage error (also: no such job, a DUMP that does not exist)",
            "3:some ranks did not answer (UNAVAILABLE) or dumps could not be read (one line each on stderr)"})
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
