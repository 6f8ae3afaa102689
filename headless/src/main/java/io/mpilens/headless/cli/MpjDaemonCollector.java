package io.mpilens.headless.cli;

import io.mpilens.headless.observe.MpjDaemons;
import java.util.Arrays;

/**
 * {@code mpilens collect} started by an MPJ Express daemon ({@code --via mpj}): MPJ's
 * {@code Wrapper} calls this main with three arguments of its own first (rank, device
 * configuration, device name), which are dropped; the exit code, which the daemon does not pass
 * on, is the last line printed ({@link MpjDaemons#EXIT_LINE}). Runs {@code collect} only.
 */
public final class MpjDaemonCollector {
    private MpjDaemonCollector() {
    }

    public static void main(String[] wrapped) {
        String[] args = Arrays.copyOfRange(wrapped, Math.min(3, wrapped.length), wrapped.length);
        int code;
        if (args.length == 0 || !args[0].equals("collect")) {
            System.err.println("mpilens: started by an MPJ Express daemon for 'collect' only, got: " + String.join(" ", args));
            code = MpiLensCli.EXIT_USAGE;
        } else {
            code = MpiLensCli.run(args, System.out, System.err, System.getenv());
        }
        System.err.flush();
        System.out.println(MpjDaemons.EXIT_LINE + code);
        System.out.flush();
        System.exit(code); // MPJ's Wrapper does not: a thread left running would keep the JVM
    }
}
