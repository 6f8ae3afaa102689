package io.mpilens.api.job;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The name of this host, one rule for the agent (the registry's and the job record's {@code host})
 * and for the reader (is a rank on this host?): the kernel's host name (its UTS namespace's), read
 * from {@code /proc/sys/kernel/hostname}; elsewhere the JDK's {@code InetAddress.getLocalHost()}.
 * The file read is what {@code getLocalHost().getHostName()} starts from, without the name
 * service lookup behind it (tens of milliseconds of CPU in every rank JVM at start-up, and
 * "localhost" when the name does not resolve).
 */
public final class HostName {
    private static volatile String local;

    private HostName() {
    }

    public static String local() {
        String h = local;
        if (h == null) local = h = read();
        return h;
    }

    private static String read() {
        try (InputStream in = new java.io.FileInputStream("/proc/sys/kernel/hostname")) { // java.io: no NIO channel at start-up
            byte[] b = in.readNBytes(256);
            String name = new String(b, StandardCharsets.US_ASCII).trim();
            if (!name.isEmpty()) return name;
        } catch (IOException | RuntimeException e) {
            // not Linux: ask the JDK
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            return "localhost";
        }
    }
}
