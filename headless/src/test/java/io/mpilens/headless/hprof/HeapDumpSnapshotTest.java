package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.FieldsTarget;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dump decodes to exactly the snapshot a debugger reads live at the same moment. */
class HeapDumpSnapshotTest {
    @TempDir
    Path dir;

    @Test
    void liveAndDumpSnapshotsOfTheSamePausedMomentAreIdenticalFieldByField() throws Exception {
        // jcmd reaches a JVM whose threads JDI suspended only through an attach listener started beforehand
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class, "-XX:+StartAttachListener");
             JdiTargetReader live = JdiTargetReader.attach(JdwpAddress.parse(target.address()), Duration.ofSeconds(10))) {
            List<ProcessSnapshot> liveSnapshot;
            Path plain, gzip;
            live.virtualMachine().suspend();
            try {
                liveSnapshot = new RegistryDecoder(live).decode();
                plain = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false);
                gzip = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof.gz"), true);
            } finally {
                live.virtualMachine().resume();
            }

            List<ProcessSnapshot> fromDump = HeapDumps.read(plain);
            io.mpilens.headless.testing.SameSnapshots.assertSame(liveSnapshot, fromDump);
            io.mpilens.headless.testing.SameSnapshots.assertSame(liveSnapshot, HeapDumps.read(gzip));

            ProcessSnapshot rank1 = fromDump.get(0);
            assertEquals(1, rank1.rank());
            assertEquals(target.pid(), rank1.pid());
            HandleInfo split = rank1.handles().stream().filter(h -> "split".equals(h.creatingCall())).findFirst().orElseThrow();
            assertEquals(Lifecycle.FREED, split.state(), "the freed communicator with a pending iSend is an orphan");
            assertEquals(List.of("demo.Ring.main(Ring.java:42)", "demo.Launcher.run(Launcher.java:7)"), split.creationStack());
            assertFalse(rank1.released().isEmpty(), "the freed group is in the history");
        }
    }

    @Test
    void aDumpOfAJvmWithoutTheAgentSaysThereIsNoRegistry() throws Exception {
        Path dump;
        try (TargetJvm target = TargetJvm.launch(FieldsTarget.class)) {
            dump = HeapDumper.dump(target.pid(), dir.resolve("plain-app.hprof"), false);
        }
        RegistryNotFoundException e = assertThrows(RegistryNotFoundException.class, () -> HeapDumps.read(dump));
        assertTrue(e.getMessage().startsWith("no mpilens registry in plain-app.hprof"), e.getMessage());
    }

    @Test
    void openingMakesFewPassesOverTheDump() throws Exception {
        Path dump;
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class)) {
            dump = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false);
        }
        try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
            int opened = reader.passes();
            HeapDumps.decode(reader);
            assertTrue(opened <= 3, "passes to open: " + opened);
            assertEquals(opened, reader.passes(), "the decoder's reads were all prefetched");
        }
    }

    @Test
    void theFirstPassStopsOnceTheRegistryIsFoundAndReadsTheRestOnlyWhenAskedTo() throws Exception {
        Path dump;
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class)) {
            dump = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false);
        }
        System.setProperty("mpilens.hprof.wholeFirstPass", "true");
        List<ProcessSnapshot> whole;
        try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
            assertFalse(reader.stoppedEarly(), "read whole on request");
            whole = HeapDumps.decode(reader);
        } finally {
            System.clearProperty("mpilens.hprof.wholeFirstPass");
        }
        try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
            assertTrue(reader.stoppedEarly(), "the first pass read the whole dump although the registry was found");
            io.mpilens.headless.testing.SameSnapshots.assertSame(whole, HeapDumps.decode(reader));
            assertTrue(reader.stoppedEarly(), "decoding the registry needed nothing beyond it");
            // a class the registry does not need: its name may come later, so the rest is read
            assertFalse(reader.classesNamed("java.lang.Thread").isEmpty());
            assertFalse(reader.stoppedEarly(), "asking for another class finishes the pass");
        }
    }

    @Test
    void anObjectBeyondWhereTheFirstPassStoppedIsFoundByReadingOnAndAnAbsentOneAfterTheWholeDump() throws Exception {
        Path dump;
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class)) {
            dump = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false);
        }
        long last; // the thread object of the highest id: HotSpot writes objects by address, so late in the dump
        String type;
        try (HprofTargetReader whole = HprofTargetReader.open(dump)) {
            whole.instancesOf(whole.classesNamed("java.lang.Thread"), 1000);
            last = whole.locatedIds().stream().mapToLong(Long::longValue).max().orElseThrow();
            type = whole.objectWithId(last).typeName();
        }
        try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
            assertTrue(reader.stoppedEarly());
            assertFalse(reader.locatedIds().contains(last), "located before it was asked for");
            long stoppedAt = reader.firstPassAt();
            assertEquals(type, reader.objectWithId(last).typeName());
            assertTrue(reader.firstPassAt() > stoppedAt, "the first pass did not read on to find it");
            TargetReadException e = assertThrows(TargetReadException.class,
                    () -> reader.objectWithId(last + 1).typeName());
            assertTrue(e.getMessage().contains("not in the dump"), e.getMessage());
            assertFalse(reader.stoppedEarly(), "an absent object is absent only once the whole dump is read");
        }
    }

    @Test
    void aFirstPassOnTwoThreadsGivesTheSameSnapshot() throws Exception {
        Path dump;
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class)) {
            dump = HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false);
        }
        List<ProcessSnapshot> oneThread = withProperties("1", () -> HeapDumps.read(dump));
        List<ProcessSnapshot> twoThreads = withProperties("2", () -> {
            try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
                List<ProcessSnapshot> out = HeapDumps.decode(reader);
                assertTrue(reader.segmentsAside() > 0, "no segment was skimmed on the second thread");
                return out;
            }
        });
        io.mpilens.headless.testing.SameSnapshots.assertSame(oneThread, twoThreads);
    }

    /** Runs with the first pass on this many threads, from any size of dump. */
    private static <T> T withProperties(String threads, java.util.concurrent.Callable<T> read) throws Exception {
        System.setProperty("mpilens.hprof.threads", threads);
        System.setProperty("mpilens.hprof.parallelFrom", "0");
        try {
            return read.call();
        } finally {
            System.clearProperty("mpilens.hprof.threads");
            System.clearProperty("mpilens.hprof.parallelFrom");
        }
    }
}
