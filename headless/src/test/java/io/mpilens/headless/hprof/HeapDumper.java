package io.mpilens.headless.hprof;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Writes heap dumps of other JVMs with {@code jcmd PID GC.heap_dump}, the way a user does. */
final class HeapDumper {
    private HeapDumper() {
    }

    /** Dumps the live objects of {@code pid} to {@code file}; gzip-compressed if {@code gzip}. */
    static Path dump(long pid, Path file, boolean gzip) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jcmdFor(pid).toString(), Long.toString(pid), "GC.heap_dump"));
        if (gzip) cmd.add("-gz=1");
        cmd.add(file.toAbsolutePath().toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.isRegularFile(file)) {
            throw new IOException("jcmd " + pid + " GC.heap_dump failed: " + out);
        }
        return file;
    }

    /** The jcmd beside the target's own java: the attach protocol is safest between equal JDKs. */
    static Path jcmdFor(long pid) {
        String java = ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse(null);
        if (java != null) {
            Path jcmd = Path.of(java).resolveSibling("jcmd");
            if (Files.isExecutable(jcmd)) return jcmd;
        }
        return Path.of(System.getProperty("java.home"), "bin", "jcmd");
    }
}
