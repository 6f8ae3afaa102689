package io.mpilens.headless;

import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.json.SnapshotJson;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java API: snapshots of the MPI objects of live Java MPI processes. Each call connects,
 * reads and disconnects; the targets keep running.
 *
 * <pre>{@code
 * for (ProcessSnapshot p : MpiLens.attach("127.0.0.1:40123")) {
 *     p.orphans().forEach(System.out::println);
 * }
 * }</pre>
 */
public final class MpiLens {
    private MpiLens() {
    }

    /**
     * The MPI processes of the JVM listening on {@code host:port} (one, or several under
     * MPJ Express multicore).
     *
     * @throws io.mpilens.api.target.TargetReadException unreachable, or disconnected while reading
     * @throws io.mpilens.api.registry.RegistryNotFoundException the mpilens agent is not loaded there
     * @throws io.mpilens.api.registry.UnsupportedLayoutException the agent there is of another version
     */
    public static List<ProcessSnapshot> attach(String hostPort) {
        return attach(hostPort, JdiTargetReader.DEFAULT_CONNECT_TIMEOUT);
    }

    public static List<ProcessSnapshot> attach(String hostPort, Duration timeout) {
        return new JobSnapshotter(timeout, false).read(JdwpAddress.parse(hostPort));
    }

    /** All ranks of a job, read in parallel; unreachable addresses become failures, not exceptions. */
    public static JobSnapshot attachJob(List<String> hostPorts, Duration timeout, boolean suspend) {
        List<JdwpAddress> addresses = new ArrayList<>();
        for (String s : hostPorts) addresses.add(JdwpAddress.parse(s));
        return new JobSnapshotter(timeout, suspend).snapshot(addresses);
    }

    /**
     * Reads through a JDI connection the caller already has (a debugger's) and leaves it open.
     * Runs on the calling thread, so without a deadline.
     */
    public static List<ProcessSnapshot> read(VirtualMachine vm, String description) {
        return JobSnapshotter.decode(JdiTargetReader.wrap(vm, description));
    }

    /** The MPI processes recorded in a heap dump (.hprof, plain or gzip), as {@link #attach} shows them live. */
    public static List<ProcessSnapshot> openHeapDump(java.nio.file.Path dump) {
        return HeapDumps.read(dump);
    }

    /** The public JSON form, schema {@value SnapshotJson#SCHEMA}. */
    public static String toJson(JobSnapshot job) {
        return SnapshotJson.write(job);
    }
}
