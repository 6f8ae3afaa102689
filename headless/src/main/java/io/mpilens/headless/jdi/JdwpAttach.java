package io.mpilens.headless.jdi;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.connect.TransportTimeoutException;
import io.mpilens.api.target.TargetReadException;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Connecting to a rank's JDWP listener, bounded by a deadline, with a one-line reason when it
 * does not answer; {@link JdiTargetReader} does the reading once connected.
 */
public final class JdwpAttach {
    private static final String SOCKET_ATTACH = "com.sun.jdi.SocketAttach";
    private static final Duration REFUSED_RETRY = Duration.ofSeconds(1);
    private static final Duration REFUSED_PAUSE = Duration.ofMillis(100);

    private JdwpAttach() {
    }

    /**
     * Attaches over a JDWP socket. JDI's own attach can hang (a stopped process, a port that
     * accepts but never answers), so it runs in its own thread and is abandoned at the deadline.
     */
    static VirtualMachine connect(JdwpAddress address, Duration timeout) {
        AttachingConnector connector = socketConnector();
        Map<String, Connector.Argument> args = connector.defaultArguments();
        args.get("hostname").setValue(address.host());
        args.get("port").setValue(Integer.toString(address.port()));
        Connector.Argument jdiTimeout = args.get("timeout");
        if (jdiTimeout != null) jdiTimeout.setValue(Long.toString(Math.max(1, timeout.toMillis())));

        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<VirtualMachine> result = new CompletableFuture<>();
        Throwable[] lastFailure = new Throwable[1];
        Thread attacher = new Thread(() -> {
            try {
                VirtualMachine vm = attachRetryingRefused(connector, args, deadline, result, lastFailure);
                if (!result.complete(vm)) vm.dispose(); // arrived after the deadline: nobody wants it
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "mpilens-attach-" + address);
        attacher.setDaemon(true);
        attacher.start();
        try {
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (result.completeExceptionally(e)) {
                attacher.interrupt();
                Throwable last;
                synchronized (lastFailure) {
                    last = lastFailure[0];
                }
                throw attachFailed(address, timeout, last);
            }
            return result.join(); // made it just in time
        } catch (ExecutionException e) {
            throw attachFailed(address, timeout, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(e);
            throw new TargetReadException("interrupted while attaching to " + address);
        }
    }

    /**
     * A JDWP server that just lost its debugger re-opens its port a moment later, so a refused
     * connection is tried again for a short while (never past the deadline).
     */
    private static VirtualMachine attachRetryingRefused(AttachingConnector connector,
                                                        Map<String, Connector.Argument> args, long deadline,
                                                        CompletableFuture<?> abandoned, Throwable[] lastFailure)
            throws IOException, IllegalConnectorArgumentsException, InterruptedException {
        long retryUntil = Math.min(deadline, System.nanoTime() + REFUSED_RETRY.toNanos());
        while (true) {
            try {
                return connector.attach(args);
            } catch (ConnectException e) {
                synchronized (lastFailure) {
                    lastFailure[0] = e;
                }
                if (abandoned.isDone() || System.nanoTime() + REFUSED_PAUSE.toNanos() > retryUntil) throw e;
                Thread.sleep(REFUSED_PAUSE.toMillis());
            }
        }
    }

    private static AttachingConnector socketConnector() {
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (SOCKET_ATTACH.equals(c.name())) return c;
        }
        throw new TargetReadException("this JVM has no JDI socket connector (" + SOCKET_ATTACH
                + "): run mpilens on a full JDK that contains the jdk.jdi module");
    }

    /** The one-line message for an address that could not be attached; {@code cause} null for a timeout. */
    public static TargetReadException attachFailed(JdwpAddress address, Duration timeout, Throwable cause) {
        String why = null;
        String hint = "is the rank running with -agentlib:jdwp=transport=dt_socket,server=y,address=" + address
                + ", and no other debugger attached to it?";
        if (cause == null || cause instanceof TransportTimeoutException) {
            hint = "is the rank stopped (SIGSTOP), or is " + address + " not a JDWP port? Try a longer --timeout";
        } else if (cause instanceof ConnectException) {
            why = "connection refused";
        } else if (cause instanceof UnknownHostException) {
            why = "unknown host " + address.host();
            hint = "check the host name";
        } else if (cause instanceof NoRouteToHostException) {
            why = "no route to host";
            hint = "check the host name and the network";
        } else if (cause instanceof IOException) {
            why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        } else if (cause instanceof IllegalConnectorArgumentsException) {
            why = "bad connector arguments: " + cause.getMessage();
        } else {
            why = cause.toString();
        }
        return new TargetReadException(address + " did not answer within " + seconds(timeout)
                + (why == null ? "" : " (" + why + ")") + ": " + hint, cause);
    }

    /** "5 s", "1.5 s". */
    public static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString() + " s";
    }

}
