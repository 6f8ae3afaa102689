package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.FaultSvg;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mpilens hostinfo}: hosts with their launcher daemons and ranks, UP/PARTIAL/DOWN. */
@Command(name = "hostinfo", mixinStandardHelpOptions = true,
        description = {"Show the job's hosts: launcher daemons (mpirun, orted, MPJ's daemon) and ranks with their",
            "state (OK, JOINING, UNAVAILABLE: no answer in time, FAILED: dead with evidence, FINALIZED)."})
final class HostinfoCommand extends FaultCommand {
    @Option(names = "--svg", paramLabel = "FILE", description = "Also draw the boxes, with a legend, into FILE (SVG).")
    Path svg;

    @Override
    Path svgFile() {
        return svg;
    }

    @Override
    String svg(JobModel m) {
        return FaultSvg.hostinfo(m);
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
