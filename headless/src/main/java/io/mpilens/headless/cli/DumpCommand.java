package io.mpilens.headless.cli;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.agentless.Agentless;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingNotFoundException;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.observe.JobSnapshot;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code mpilens dump FILE.hprof…}: what {@code handles} shows live, read from heap dumps. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = {"Show the MPI handles recorded in heap dumps, orphans included: one dump per rank JVM.",
            "Dumps come from 'jcmd PID GC.heap_dump FILE', -XX:+HeapDumpOnOutOfMemoryError or the agent's"
                + " dumpOnError option; gzip-compressed dumps (jcmd ... -gz=1) are read as they are."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every dump was read (dumps without the agent: from the binding's objects, marked"
                + " REDUCED INFORMATION)", "1:internal failure",
            "2:usage error (also: a FILE that does not exist, or a directory)",
            "3:some dumps could not be read: damaged, or with no MPI binding in them (one line each on stderr)"})
final class DumpCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Heap dumps (.hprof, .hprof.gz).")
    List<Path> files;

    @picocli.CommandLine.Mixin
    HandleOutput output;

    @Option(names = "--agentless", description = "Read the MPI binding's own objects even in dumps that hold the"
            + " agent's registry (reduced information). Dumps without the agent are read so anyway, marked as such.")
    boolean agentless;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!HandleOutput.dumpFilesExist(files, err)) return MpiLensCli.EXIT_USAGE;
        Reading r = read(files, agentless, err);
        output.print(r.job(), r.agentless(), out, parent.env);
        return HandleOutput.reportFailures(r.job(), err);
    }

    /** What a set of dumps held: registries decoded, and the dumps read without one (agentless). */
    record Reading(JobSnapshot job, List<AgentlessProcess> agentless) {
    }

    /** Every dump's registry decoded, or one failure each; the address of a rank is its dump's file name. */
    static JobSnapshot read(List<Path> files, PrintWriter err) {
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        for (Path f : files) {
            String address = String.valueOf(f.getFileName());
            DumpProgress progress = new DumpProgress(address, err);
            try {
                for (ProcessSnapshot p : HeapDumps.read(f, progress)) ranks.add(new JobSnapshot.Rank(address, p));
            } catch (RegistryNotFoundException e) {
                failures.add(new JobSnapshot.Failure(address, address + " holds no mpilens registry: the dumped JVM"
                        + " ran without the mpilens agent (-javaagent:mpilens-agent.jar), so its MPI objects were"
                        + " not recorded; 'mpilens dump' shows what the binding's own objects hold"));
            } catch (TargetReadException | UnsupportedLayoutException e) {
                failures.add(new JobSnapshot.Failure(address, e.getMessage()));
            } finally {
                progress.done();
            }
        }
        return new JobSnapshot(ranks, failures);
    }

    /**
     * As {@link #read(List, PrintWriter)}, but a dump without a registry (or every dump, with
     * {@code agentlessOnly}) is read from the binding's own objects, with a note on stderr.
     */
    static Reading read(List<Path> files, boolean agentlessOnly, PrintWriter err) {
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        List<AgentlessProcess> reduced = new ArrayList<>();
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        for (Path f : files) {
            String address = String.valueOf(f.getFileName());
            DumpProgress progress = new DumpProgress(address, err);
            try {
                Agentless.DumpReading d = Agentless.readDump(f, agentlessOnly, progress);
                progress.done();
                for (ProcessSnapshot p : d.processes()) ranks.add(new JobSnapshot.Rank(address, p));
                if (!d.agentless().isEmpty() && !agentlessOnly) {
                    err.println("mpilens: " + address + " holds no mpilens registry (the JVM ran without the agent):"
                            + " showing what the MPI binding's own objects hold, REDUCED INFORMATION");
                }
                reduced.addAll(d.agentless());
            } catch (BindingNotFoundException e) {
                failures.add(new JobSnapshot.Failure(address, address + " holds no mpilens registry (its JVM ran"
                        + " without -javaagent:mpilens-agent.jar) and " + e.getMessage()));
            } catch (TargetReadException | UnsupportedLayoutException e) {
                failures.add(new JobSnapshot.Failure(address, e.getMessage()));
            } finally {
                progress.done();
            }
        }
        return new Reading(new JobSnapshot(ranks, failures), reduced);
    }
}
