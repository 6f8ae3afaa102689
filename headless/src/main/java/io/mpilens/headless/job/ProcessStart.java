package io.mpilens.headless.job;

import io.mpilens.api.job.ProcStat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a pid on this host is still the process a record or a share file names, or a later one
 * that reuses the pid. By the start in clock ticks since boot when both sides have it (a step of
 * the wall clock, from NTP or a virtual machine resumed or forked, moves every wall-clock start the
 * kernel reports, and with a tolerance every live rank would look like another process); else by
 * the wall-clock start, within {@code tolerance}.
 */
public final class ProcessStart {
    private ProcessStart() {
    }

    /** The start of {@code pid} in clock ticks since boot ({@code /proc/<pid>/stat} field 22), -1 when unknown. */
    public static long ticks(long pid) {
        return ProcStat.field(stat(pid), ProcStat.START_TICKS);
    }

    /** The {@code /proc/<pid>/stat} line of {@code pid} ({@link ProcStat} parses it), null when there is none. */
    public static String stat(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** This process's start in ticks, -1 when unknown. */
    public static long ticksOfThisProcess() {
        return ticks(ProcessHandle.current().pid());
    }

    /**
     * Whether the live process {@code p} is the one that started at {@code ticks} (-1: not recorded)
     * or, failing that, at {@code millis} (epoch ms) within {@code toleranceMillis}; {@code unknown}
     * when neither can be checked.
     */
    public static boolean same(ProcessHandle p, long ticks, long millis, long toleranceMillis, boolean unknown) {
        if (ticks >= 0) {
            long now = ticks(p.pid());
            if (now >= 0) return now == ticks;
        }
        Optional<Instant> started = p.info().startInstant();
        return started.isEmpty() ? unknown : Math.abs(started.get().toEpochMilli() - millis) <= toleranceMillis;
    }
}
