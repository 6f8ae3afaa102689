package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded mutation loop over a real dump with a registry: truncated and bit-flipped copies
 * either decode or fail with one of the three documented exceptions and a message; nothing
 * else escapes, nothing hangs, nothing runs out of memory. Flips aim half the time at the
 * bytes the decoder reads (the registry's records), where damage is most interesting.
 * {@code -Dmpilens.mutants=N -Dmpilens.seed=S} run it longer or differently.
 */
class DamagedDumpTest {
    private static final int MUTANTS = Integer.getInteger("mpilens.mutants", 200);
    private static final long SEED = Long.getLong("mpilens.seed", 20240605L);
    /**
     * A decode that does not answer in this time is taken for a hang. Generous: a mutant that
     * sends the decoder down a slow but finite path, on a machine shared with a whole CI run, once
     * took more than the 10 s this was; the stack and the mutant are kept when it happens.
     */
    private static final long TIMEOUT_SECONDS = 60;

    @TempDir
    static Path dir;
    static byte[] dump;
    static byte[] gzipped;
    /** Offsets of the sub-records of the objects the decoder reads. */
    static long[] hotOffsets;
    static ExecutorService worker;

    @BeforeAll
    static void dumpARegistry() throws Exception {
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class)) {
            dump = Files.readAllBytes(HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof"), false));
            gzipped = Files.readAllBytes(HeapDumper.dump(target.pid(), dir.resolve("rank1.hprof.gz"), true));
        }
        try (HprofTargetReader reader = HprofTargetReader.open(dir.resolve("rank1.hprof"))) {
            HeapDumps.decode(reader);
            hotOffsets = recordOffsets(reader.locatedIds(), reader.identifierSize());
        }
        assertTrue(hotOffsets.length > 20, "registry records found: " + hotOffsets.length);
        worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mutant-decoder");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stop() {
        if (worker != null) worker.shutdownNow();
    }

    @Test
    void aDumpThatIsNotThereIsNamedWithTheReasonOnce(@org.junit.jupiter.api.io.TempDir Path empty) {
        Path missing = empty.resolve("rank0.hprof");
        TargetReadException e = org.junit.jupiter.api.Assertions.assertThrows(TargetReadException.class,
                () -> HprofTargetReader.open(missing));
        assertEquals("cannot open heap dump " + missing + ": no such file", e.getMessage());
    }

    @Test
    void everyDamagedDumpDecodesOrFailsWithAMessage() throws Exception {
        Random random = new Random(SEED);
        Map<String, Integer> outcomes = new TreeMap<>();
        Path mutant = dir.resolve("mutant.hprof");
        for (int i = 0; i < MUTANTS; i++) {
            boolean gzip = i % 10 == 9;
            byte[] original = gzip ? gzipped : dump;
            byte[] bytes;
            String how;
            if (random.nextInt(3) == 0) {
                int length = random.nextInt(original.length);
                bytes = Arrays.copyOf(original, length);
                how = "truncated at " + length;
            } else {
                bytes = original.clone();
                int flips = 1 + random.nextInt(4);
                StringBuilder at = new StringBuilder();
                for (int f = 0; f < flips; f++) {
                    int offset = !gzip && random.nextBoolean()
                            ? (int) Math.min(bytes.length - 1, hotOffsets[random.nextInt(hotOffsets.length)] + random.nextInt(48))
                            : random.nextInt(bytes.length);
                    bytes[offset] ^= (byte) (1 << random.nextInt(8));
                    at.append(' ').append(offset);
                }
                how = "bits flipped at" + at;
            }
            Files.write(mutant, bytes);
            // every other mutant with the first pass on two threads (SecondHalfSkim), whatever its size
            boolean twoThreads = i % 2 == 1;
            System.setProperty("mpilens.hprof.threads", twoThreads ? "2" : "1");
            System.setProperty("mpilens.hprof.parallelFrom", "0");
            String what = "mutant " + i + " (seed " + SEED + ", " + (gzip ? "gzip, " : "")
                    + (twoThreads ? "two threads, " : "") + how + ")";
            try {
                outcomes.merge(decode(mutant, what), 1, Integer::sum);
            } finally {
                System.clearProperty("mpilens.hprof.threads");
                System.clearProperty("mpilens.hprof.parallelFrom");
            }
        }
        System.out.println("damaged dumps: " + outcomes);
        assertEquals(MUTANTS, outcomes.values().stream().mapToInt(Integer::intValue).sum());
    }

    /** The outcome's name, or a test failure for anything undocumented. */
    private static String decode(Path file, String what) throws Exception {
        Future<String> result = worker.submit(() -> {
            try {
                HeapDumps.read(file);
                return "decoded";
            } catch (TargetReadException | RegistryNotFoundException | UnsupportedLayoutException e) {
                if (e.getMessage() == null || e.getMessage().isBlank()) fail(what + ": no message in " + e);
                return e.getClass().getSimpleName();
            } catch (Throwable t) {
                throw new AssertionError(what + ": undocumented failure " + t, t);
            }
        });
        try {
            return result.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            StringBuilder where = new StringBuilder();
            for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
                if (!t.getKey().getName().equals("mutant-decoder")) continue;
                for (StackTraceElement f : t.getValue()) where.append("\n\tat ").append(f);
            }
            Path kept = Path.of("target", "damaged-dump-no-answer.hprof").toAbsolutePath();
            try {
                Files.createDirectories(kept.getParent());
                Files.copy(file, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (java.io.IOException copy) {
                kept = null;
            }
            result.cancel(true);
            throw new AssertionError(what + ": no answer within " + TIMEOUT_SECONDS + " s"
                    + (kept == null ? "" : " (the mutant: " + kept + ")") + "; the decoder was at:" + where);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError) throw (AssertionError) e.getCause();
            throw e;
        }
    }

    /** Where the sub-records of these objects start: a record tag followed by the object's id. */
    private static long[] recordOffsets(java.util.Set<Long> ids, int idSize) {
        List<Long> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(dump);
        java.util.Set<Long> wanted = new java.util.HashSet<>(ids);
        for (int i = 0; i + 1 + idSize <= dump.length; i++) {
            int tag = dump[i] & 0xff;
            if (tag < 0x20 || tag > 0x23) continue;
            long id = idSize == 8 ? b.getLong(i + 1) : b.getInt(i + 1) & 0xffffffffL;
            if (wanted.remove(id)) out.add((long) i);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }
}
