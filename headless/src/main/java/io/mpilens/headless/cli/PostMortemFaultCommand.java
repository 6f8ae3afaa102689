package io.mpilens.headless.cli;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A fault command that also builds its model from heap dumps ({@code cominfo}, {@code hostinfo}).
 * Its exit codes are theirs: picocli adds a superclass's {@code @Command} attributes to a subclass's.
 */
@Command(exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank answered (or every dump was read)", "1:internal failure",
            "2:usage error (also: no such job, a DUMP that does not exist)",
            "3:some ranks did not answer (UNAVAILABLE) or dumps could not be read (one line each on stderr)"})
abstract class PostMortemFaultCommand extends FaultCommand {
    /** The last line of each one's description: where the model comes from. */
    static final String TARGETS = "Give --job ID, --attach HOST:PORT,... or heap dumps (one per rank JVM).";

    @Parameters(arity = "0..*", paramLabel = "DUMP", description = "Heap dumps of the job's rank JVMs (one each)"
            + " instead of --job/--attach: the picture they recorded.")
    List<Path> dumps;

    @Option(names = "--svg", paramLabel = "FILE", description = "Also draw the boxes, with a legend, into FILE (SVG).")
    Path svgFile;

    @Override
    Path svgFile() {
        return svgFile;
    }

    @Override
    List<Path> dumps() {
        return dumps;
    }
}
