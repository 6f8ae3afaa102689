package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.FaultSvg;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;

/** {@code mpilens cominfo}: every communicator of the job with its FT state and lineage. */
@Command(name = "cominfo", mixinStandardHelpOptions = true,
        description = {"Show the job's communicators: OK, DETECTED (a member failed), RECOVERED (a communicator",
            "derived from it excludes the failed members), FAILED; members marked x failed, ? unavailable."})
final class CominfoCommand extends PostMortemFaultCommand {
    @Override
    Function<JobModel, String> picture() {
        return FaultSvg::cominfo;
    }

    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        return boxes.cominfo(m);
    }

    @Override
    String json(JobModel m) {
        return FaultJson.model(m, true, false);
    }
}
