package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The woven-class cache on real Open MPI jobs: the first JVM weaves the binding's classes and
 * keeps them, the next takes every one from the cache (and runs: every other test of this suite
 * runs on classes from the default cache after its first JVM); a damaged entry is woven again
 * and rewritten; a cache directory that cannot be used means no cache, not a failed job.
 */
class WovenCacheTest {
    private static final Pattern REPORT = Pattern.compile("at MPI_Init (\\d+) binding classes came from the woven-class"
            + " cache, (\\d+) were woven \\((\\d+) of those from the cache read from its bundle\\)");

    @TempDir
    Path tmp;

    /** [from cache, woven, from the bundle] of one job's only rank, and that it ran to the end. */
    private static int[] run(Path cacheDir) throws Exception {
        return run(Binding.OPENMPI, cacheDir);
    }

    private static int[] run(Binding b, Path cacheDir) throws Exception {
        boolean ompi = b == Binding.OPENMPI;
        JobSpec spec = JobSpec.builder(b, ompi ? 1 : 2, ompi ? "io.mpilens.examples.openmpi.MessageRate"
                        : "io.mpilens.examples.mpj.MessageRate")
                .classPath(Tours.classPath(b)).appArgs(ompi ? "self" : "pair", "1000", "1").agentJar(Tours.AGENT)
                .agentOptions("verbose=true,wovenCacheDir=" + cacheDir).build();
        try (Job job = Job.launch(spec)) {
            job.awaitLine(l -> l.contains("RATE mode="), Duration.ofMinutes(2));
            assertEquals(0, job.waitFor(Duration.ofMinutes(1)), job.tail());
            String report = job.output().stream().filter(l -> REPORT.matcher(l).find()).findFirst().orElse(null);
            if (report == null) {
                assertTrue(job.output().stream().noneMatch(l -> l.contains("woven classes cached in")), job.tail());
                return null;
            }
            Matcher m = REPORT.matcher(report);
            assertTrue(m.find());
            return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
        }
    }

    private static List<Path> entries(Path cacheDir) throws Exception {
        try (Stream<Path> s = Files.walk(cacheDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theSecondJvmTakesEveryBindingClassFromTheCacheAndADamagedEntryIsWovenAgain() throws Exception {
        Path cache = tmp.resolve("woven");
        int[] first = run(cache);
        assertTrue(first != null && first[0] == 0 && first[1] > 20, "first JVM weaves: " + java.util.Arrays.toString(first));
        List<Path> kept = entries(cache); // also the classes loaded after MPI_Init
        assertTrue(kept.size() >= first[1], kept.toString());
        java.util.Map<Path, java.nio.file.attribute.FileTime> written = new java.util.HashMap<>();
        for (Path p : kept) {
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(p)), p.toString());
            written.put(p, Files.getLastModifiedTime(p));
        }

        // the first JVM wrote the entries' bundle at its exit
        List<Path> bundles = bundles(cache);
        assertEquals(1, bundles.size(), bundles.toString());
        Path bundle = bundles.get(0);
        java.nio.file.attribute.FileTime bundleWritten = Files.getLastModifiedTime(bundle);

        int[] second = run(cache);
        assertArrayEquals(new int[] {first[1], 0, first[1]}, second, "second JVM: all from the cache's bundle, nothing woven");
        assertEquals(kept, entries(cache), "no new entry");
        for (Path p : kept) assertEquals(written.get(p), Files.getLastModifiedTime(p), "not rewritten: " + p);
        assertEquals(bundleWritten, Files.getLastModifiedTime(bundle), "the bundle is not rewritten");

        // a flipped byte in the bundle's copy of mpi.Comm's entry (a class MPI_Init needs): that
        // class is read from its own file
        Path comm = kept.stream().filter(p -> p.getFileName().toString().startsWith("mpi.Comm-")).findFirst().orElseThrow();
        Path mpi = kept.stream().filter(p -> p.getFileName().toString().startsWith("mpi.MPI-")).findFirst().orElseThrow();
        byte[] b = Files.readAllBytes(bundle);
        byte[] commName = comm.getFileName().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int at = indexOf(b, commName);
        assertTrue(at > 0, "mpi.Comm's entry in the bundle");
        b[at + commName.length + 4 + 100] ^= 1; // after its name and length: inside the entry's woven bytes
        Files.write(bundle, b);
        assertArrayEquals(new int[] {first[1], 0, first[1] - 1}, run(cache), "one class from its entry file");

        // without the bundle, a truncated entry and one with a flipped byte, of classes MPI_Init
        // needs: woven again, rewritten whole, and the bundle written again
        Files.delete(bundle);
        byte[] whole = Files.readAllBytes(comm);
        Files.write(comm, java.util.Arrays.copyOf(whole, whole.length / 2));
        byte[] other = Files.readAllBytes(mpi);
        other[other.length - 1] ^= 1;
        Files.write(mpi, other);
        int[] third = run(cache);
        assertArrayEquals(new int[] {first[1] - 2, 2, 0}, third, "the two damaged entries woven again");
        assertArrayEquals(whole, Files.readAllBytes(comm), "the truncated entry is whole again");
        assertArrayEquals(new int[] {first[1], 0, first[1]}, run(cache));
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) if (in[i + j] != what[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static List<Path> bundles(Path cacheDir) throws Exception {
        try (Stream<Path> s = Files.walk(cacheDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".bundle")).sorted().collect(Collectors.toList());
        }
    }

    /**
     * MPJ Express multicore: every rank's class loader defines the binding's classes again, and
     * the launcher copies MPJ's home per job, so entries are keyed by the jar's content, not its path.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void mpjRanksOfTheNextJobTakeTheirClassesFromTheCacheThoughItsHomeIsACopy() throws Exception {
        Path cache = tmp.resolve("woven-mpj");
        int[] first = run(Binding.MPJ_MULTICORE, cache);
        assertTrue(first != null && first[1] > 40, "first JVM weaves: " + java.util.Arrays.toString(first));
        int[] second = run(Binding.MPJ_MULTICORE, cache);
        // how many classes the ranks have loaded when the first MPI_Init returns varies (the ranks
        // are threads racing): what matters is that none was woven
        assertEquals(0, second[1], "second JVM weaves nothing: " + java.util.Arrays.toString(second));
        assertTrue(second[0] > 40, "all from the cache: " + java.util.Arrays.toString(second));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aCacheDirectoryThatCannotBeMadeMeansNoCacheAndTheJobRunsAsWithout() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("file"), "in the way");
        assertEquals(null, run(notADirectory));
    }
}
