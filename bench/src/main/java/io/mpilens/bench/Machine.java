package io.mpilens.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** What else the machine was doing: results on 2 cores mean little without the load beside them. */
final class Machine {
    private Machine() {
    }

    /** "2 CPUs, load average 0.41" (the 1-minute figure from /proc/loadavg, when there is one). */
    static String describe() {
        String cpus = Runtime.getRuntime().availableProcessors() + " CPUs";
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.format(Locale.ROOT, "%s, load average %s", cpus, f[0]);
        } catch (IOException | RuntimeException e) {
            return cpus;
        }
    }
}
