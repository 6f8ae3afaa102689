package io.mpilens.bench;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.target.TargetObject;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.hprof.HprofTargetReader;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.netbeans.lib.profiler.heap.FieldValue;
import org.netbeans.lib.profiler.heap.Heap;
import org.netbeans.lib.profiler.heap.HeapFactory;
import org.netbeans.lib.profiler.heap.Instance;
import org.netbeans.lib.profiler.heap.ObjectFieldValue;
import shark.CloseableHeapGraph;
import shark.HeapField;
import shark.HeapObject;
import shark.HprofHeapGraph;
import shark.HprofIndex;

/**
 * One read of a heap dump in a fresh JVM, for {@link HprofBench}, by one of three readers:
 * {@code mpilens} (open, locate, decode the whole registry, as {@code mpilens dump} does; variants
 * {@code mpilens-2t} with the first pass on two threads, {@code mpilens-read} with copying reads),
 * {@code shark} (Square's shark-graph) or {@code gridkit} (hprof-heap's fast mode), the last two
 * finding the registry root through its static field and the objects its fields refer to. Prints
 * {@value #RESULT} with the root's id, the time from open to result and the JVM's peak resident
 * set (VmHWM) read from {@code /proc/self/status} afterwards, so the harness measures the reader,
 * not the JVM's start.
 *
 * <p>Arguments: reader, dump.
 */
public final class HeapDumpDecode {
    static final String RESULT = "DECODED";

    private HeapDumpDecode() {
    }

    public static void main(String[] args) throws Exception {
        String reader = args[0];
        Path dump = Path.of(args[1]);
        long t0 = System.nanoTime();
        String found;
        switch (reader) {
            case "mpilens": found = mpilens(dump); break;
            case "mpilens-read": // whole passes read into a buffer instead of mapped windows (DumpFile)
                System.setProperty("mpilens.hprof.mmap", "false");
                found = mpilens(dump);
                break;
            case "mpilens-2t": // the first pass on two threads (HeapDumpScan.SecondHalf, off by default)
                System.setProperty("mpilens.hprof.threads", "2");
                found = mpilens(dump);
                break;
            case "shark": found = shark(dump.toFile()); break;
            case "gridkit": found = gridkit(dump.toFile()); break;
            default: throw new IllegalArgumentException("unknown reader " + reader
                    + ": mpilens, mpilens-2t, mpilens-read, shark or gridkit");
        }
        long nanos = System.nanoTime() - t0;
        // CPU of the whole process (all threads, JIT included): on a loaded machine steadier than wall time
        long cpuNanos = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
        System.out.println(RESULT + " " + found + " nanos=" + nanos + " cpuNanos=" + cpuNanos + " hwmKiB="
                + peakResidentKiB());
    }

    private static String mpilens(Path dump) {
        int handles = 0;
        try (HprofTargetReader reader = HprofTargetReader.open(dump)) {
            List<ProcessSnapshot> snapshots = HeapDumps.decode(reader);
            for (ProcessSnapshot p : snapshots) handles += p.handles().size();
            Object root = reader.staticField(reader.classesNamed(RegistryLayout.ROOT_CLASS).get(0),
                    RegistryLayout.ROOT_FIELD);
            String id = root.toString().replaceAll("^object (0x[0-9a-f]+).*", "$1");
            return "root=" + id + " handles=" + handles + " passes=" + reader.passes();
        }
    }

    private static String shark(File dump) throws Exception {
        try (CloseableHeapGraph graph = HprofHeapGraph.Companion.openHeapGraph(dump, null,
                HprofIndex.Companion.defaultIndexedGcRootTags())) {
            HeapObject.HeapClass c = graph.findClassByName(RegistryLayout.ROOT_CLASS);
            HeapField f = c.readStaticField(RegistryLayout.ROOT_FIELD);
            HeapObject.HeapInstance root = f.getValueAsInstance();
            int refs = 0;
            for (HeapField field : kotlin.sequences.SequencesKt.toList(root.readFields())) {
                if (field.getValue().getAsObject() != null) refs++;
            }
            return "root=0x" + Long.toHexString(root.getObjectId()) + " references=" + refs;
        }
    }

    private static String gridkit(File dump) throws Exception {
        Heap heap = HeapFactory.createFastHeap(dump);
        Instance root = (Instance) heap.getJavaClassByName(RegistryLayout.ROOT_CLASS)
                .getValueOfStaticField(RegistryLayout.ROOT_FIELD);
        int refs = 0;
        for (Object v : root.getFieldValues()) {
            if (v instanceof ObjectFieldValue && ((ObjectFieldValue) v).getInstance() != null) refs++;
        }
        return "root=0x" + Long.toHexString(root.getInstanceId()) + " references=" + refs;
    }

    /** VmHWM of this process in KiB, -1 where /proc has none. */
    static long peakResidentKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }
}
