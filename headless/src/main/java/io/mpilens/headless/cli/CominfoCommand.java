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
        description = {"Show the job's communicators and their fault-tolerance state.",
            "OK; DETECTED: a member failed; RECOVERED: a communicator derived from it holds exactly its surviving"
                + " members; FAILED: every member failed. Members marked x failed, ? unavailable.",
            PostMortemFaultCommand.TARGETS})
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
