package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Agent option dumpOnError: a rank dying of an uncaught exception leaves a dump mpilens reads. */
class DumpOnErrorTest {
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aRankDyingOfAnUncaughtExceptionLeavesADumpWithItsMpiObjects(@TempDir Path dumps) throws Exception {
        Path testClasses = Paths.get(DiesAfterInit.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 1, DiesAfterInit.class.getName()).classPath(testClasses)
                .agentJar(Tours.AGENT).agentOptions("dumpOnError=true,dumpDir=" + dumps).build();
        try (Job job = Job.launch(spec)) {
            assertNotEquals(0, job.waitFor(Tours.START), "the rank died; output:\n" + job.tail());
            List<Path> files;
            try (var list = Files.list(dumps)) {
                files = list.collect(Collectors.toList());
            }
            assertEquals(1, files.size(), "one dump; output:\n" + job.tail());
            String name = files.get(0).getFileName().toString();
            assertTrue(name.matches("mpilens-rank0-pid\\d+\\.hprof"), name);
            assertTrue(job.output().stream().anyMatch(l -> l.contains("simulated crash of a rank")),
                    "the original handler still printed the exception:\n" + job.tail());

            List<ProcessSnapshot> ranks = HeapDumps.read(files.get(0));
            assertEquals(1, ranks.size());
            ProcessSnapshot rank0 = ranks.get(0);
            assertEquals(0, rank0.rank());
            assertEquals(MpiState.INITIALIZED, rank0.mpiState());
            assertEquals("pid" + rank0.pid() + ".hprof", name.substring(name.indexOf("pid")));
            assertTrue(rank0.handles().stream().anyMatch(h -> h.kind() == HandleKind.COMMUNICATOR
                    && "dup".equals(h.creatingCall())), "the duplicated communicator: " + rank0.handles());

            // cominfo/hostinfo on this dump: a dump written as the rank died is evidence of its death
            io.mpilens.headless.ft.JobModel model = io.mpilens.headless.observe.HeapDumpJob.read(files, null).model();
            io.mpilens.headless.ft.RankStatus status = model.rank(0).orElseThrow();
            assertEquals(io.mpilens.headless.ft.ProcessState.FAILED, status.state());
            assertEquals("dumped as it died (" + name + ")", status.evidence());
            // the status word the dump shows (status DUMP): an error on rank 0
            assertEquals(io.mpilens.headless.ft.StatusWord.ER_PR0, model.status().bits(), model.status().line());
            assertTrue(model.status().because().startsWith("rank 0 FAILED"), model.status().line());
        }
    }
}
