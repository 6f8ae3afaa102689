package io.mpilens.headless.cli;

import io.mpilens.headless.hprof.HprofTargetReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One self-overwriting stderr line while a big dump is read: only when stderr is a terminal,
 * and only once reading has taken more than a second, so pipes and quick reads stay clean.
 */
final class DumpProgress implements HprofTargetReader.Progress {
    private static final long QUIET_NANOS = 1_000_000_000L;
    private final String file;
    private final PrintWriter err;
    private final boolean terminal = stderrIsTerminal();
    private final long start = System.nanoTime();
    private boolean shown;
    private int lastPercent = -1;

    DumpProgress(String file, PrintWriter err) {
        this.file = file;
        this.err = err;
    }

    @Override
    public void update(int pass, long bytesDone, long bytesTotal) {
        if (!terminal || System.nanoTime() - start < QUIET_NANOS) return;
        int percent = bytesTotal <= 0 ? 0 : (int) Math.min(100, bytesDone * 100 / bytesTotal);
        if (shown && percent == lastPercent) return;
        lastPercent = percent;
        shown = true;
        err.print("\rmpilens: reading " + file + ": pass " + pass + ", " + percent + "%   ");
        err.flush();
    }

    void done() {
        if (!shown) return;
        err.print("\r" + " ".repeat(Math.min(79, 40 + file.length())) + "\r");
        err.flush();
        shown = false;
    }

    /** Linux: fd 2 is a terminal device. Elsewhere no progress line, which is never wrong. */
    private static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}
