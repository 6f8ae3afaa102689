package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job directory shared between hosts ({@code MPILENS_JOBS} on a shared file system): the records
 * of ranks on other hosts are listed, but their JDWP addresses are those hosts' loopback, so
 * nothing connects to them from here; each such rank is named with the host it runs on and how to
 * read it ({@code --hosts}). Here a listener on this host's loopback stands at the address the
 * remote rank's record names, and must see no connection.
 */
class SharedJobDirectoryTest {
    @TempDir
    Path tmp;

    private record Run(int code, String out, String err) {
    }

    private Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("MPILENS_JOBS", tmp.toString(), "NO_COLOR", "1"));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private void record(String job, int rank, int size, String host, int port) throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path dir = tmp.resolve(job);
        if (!Files.exists(dir)) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path f = dir.resolve("rank-" + rank + ".json");
        Files.writeString(f, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"" + job + "\",\"rank\":" + rank + ",\"size\":" + size
                + ",\"pid\":" + (4000 + rank) + ",\"parentPid\":3999,\"host\":\"" + host + "\",\"jdwp\":\"127.0.0.1:" + port + "\","
                + "\"binding\":\"openmpi\",\"epoch\":0,\"startTime\":1700000000000,\"updated\":0,"
                + "\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"x\"}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void ranksOfOtherHostsAreNamedWithTheirHostAndNeverConnectedToFromHere() throws Exception {
        try (ServerSocket trap = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger connections = new AtomicInteger();
            trap.setSoTimeout(100);
            Thread accept = new Thread(() -> {
                while (!trap.isClosed()) {
                    try (var s = trap.accept()) {
                        connections.incrementAndGet();
                    } catch (SocketTimeoutException e) {
                        // again
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
            record("shared-job", 0, 2, "node-a-elsewhere", trap.getLocalPort());
            record("shared-job", 1, 2, "node-b-elsewhere", trap.getLocalPort());

            Run jobs = run("jobs");
            assertEquals(0, jobs.code(), jobs.err());
            assertTrue(jobs.out().lines().anyMatch(l -> l.matches("shared-job\\s+2/2\\s.*")), "the job is listed:\n" + jobs.out());

            Run hostinfo = run("hostinfo", "--job", "shared-job", "--timeout", "3");
            String all = hostinfo.out() + "\n--- stderr:\n" + hostinfo.err();
            for (String host : List.of("node-a-elsewhere", "node-b-elsewhere")) {
                assertTrue(hostinfo.out().contains("runs on " + host + ", not this host: read it there with --hosts " + host)
                        || hostinfo.out().contains("runs on " + host + ", not this host"), all);
            }
            assertTrue(hostinfo.out().lines().filter(l -> l.contains("UNAVAILABLE")).count() >= 2, all);

            Run handles = run("handles", "--job", "shared-job", "--timeout", "3");
            String both = handles.out() + "\n--- stderr:\n" + handles.err();
            assertTrue(handles.err().contains("rank 0 of job shared-job runs on node-a-elsewhere, not this host: read it there"
                    + " with --hosts node-a-elsewhere"), both);
            assertTrue(handles.err().contains("rank 1 of job shared-job runs on node-b-elsewhere"), both);
            assertTrue(handles.code() != 0, "nothing could be read here: " + both);

            Thread.sleep(300);
            assertEquals(0, connections.get(), "a rank of another host was connected to at this host's loopback:\n" + all + "\n" + both);
        }
    }
}
