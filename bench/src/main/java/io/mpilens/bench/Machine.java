package io.mpilens.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What else the machine was doing: results on 2 cores mean little without the load beside them. */
final class Machine {
    private Machine() {
    }

    static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The 1-minute load average from /proc/loadavg, or "?" where there is none. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
