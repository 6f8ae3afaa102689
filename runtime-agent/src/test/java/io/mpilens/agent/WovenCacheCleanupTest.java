package io.mpilens.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The woven-class cache removes other agent jars' directories once unused for a month, and
 * nothing it did not make: {@code wovenCacheDir} may name a directory that holds other things.
 */
class WovenCacheCleanupTest {
    @TempDir
    Path base;

    private Path dir(String name, String... files) throws Exception {
        Path d = Files.createDirectory(base.resolve(name));
        for (String f : files) Files.writeString(d.resolve(f), "x");
        Files.setLastModifiedTime(d, FileTime.from(Instant.now().minus(Duration.ofDays(40))));
        return d;
    }

    @Test
    void onlyOldAgentDirectoriesAndOnlyTheirEntriesGo() throws Exception {
        Path keep = dir("0123456789abcdef0123", "mpi.Comm-1.class");
        Path old = dir("aaaaaaaaaaaaaaaaaaaa", "mpi.Comm-1.class", ".w-1.tmp");
        Path mixed = dir("bbbbbbbbbbbbbbbbbbbb", "mpi.Comm-1.class", "notes.txt");
        Path other = dir("my-project", "mpi.Comm-1.class");
        Path recent = Files.createDirectory(base.resolve("cccccccccccccccccccc"));
        Files.writeString(recent.resolve("mpi.Comm-1.class"), "x");

        WovenCache.removeUnused(base, keep);

        assertTrue(Files.exists(keep.resolve("mpi.Comm-1.class")), "the directory in use stays");
        assertFalse(Files.exists(old), "an old agent directory with only entries is removed");
        assertFalse(Files.exists(mixed.resolve("mpi.Comm-1.class")), "its entries go");
        assertTrue(Files.exists(mixed.resolve("notes.txt")), "a file the cache did not make stays, and its directory");
        assertTrue(Files.exists(other.resolve("mpi.Comm-1.class")), "a directory not named like an agent id stays whole");
        assertTrue(Files.exists(recent.resolve("mpi.Comm-1.class")), "a directory used this month stays");
    }
}
