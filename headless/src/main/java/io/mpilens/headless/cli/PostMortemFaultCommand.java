package io.mpilens.headless.cli;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A fault command that also builds its model from heap dumps ({@code cominfo}, {@code hostinfo}). */
abstract class PostMortemFaultCommand extends FaultCommand {
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
