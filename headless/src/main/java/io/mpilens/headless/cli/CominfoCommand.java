package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.FaultSvg;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;

/** {@code mpilens cominfo}: every communicator of the job with its FT state and lineage. */
@Command(name = "cominfo", mixinStandardHelpOptions = true,
        description = {"Show the job's communicators and their fault-tolerance state.",
            "OK; DETECTED: a member failed; RECOVERING: live members are inside a call that rebuilds it (createGroup,"
                + " split, spawn, merge...); RECOVERED: a communicator derived from it holds exactly its surviving"
                + " members, or (rebuilt) all of them with replacements; REVOKED: ULFM's revoke (no binding here"
                + " has ULFM); FAILED: every member failed."
                + " Members marked x failed, ? unavailable.",
            PostMortemFaultCommand.TARGETS})
final class CominfoCommand extends PostMortemFaultCommand {
    /** The threads' calls too: a communicator whose survivors are inside the calls that rebuild it is RECOVERING. */
    @Override
    JobObserver configure(JobObserver o) {
        return o.withFrames(false);
    }

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
