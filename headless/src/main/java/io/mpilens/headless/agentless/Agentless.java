package io.mpilens.headless.agentless;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.hprof.HprofTargetReader;
import java.nio.file.Path;
import java.util.List;

/**
 * Agentless mode for heap dumps: a dump without the mpilens agent, read from the MPI binding's
 * own objects ({@link BindingObjects}). Live JVMs: {@code JobSnapshotter.agentless}.
 */
public final class Agentless {
    private Agentless() {
    }

    /** A heap dump: its registry's processes, or (no registry, or asked for) what the binding's objects hold. */
    public record DumpReading(List<ProcessSnapshot> processes, List<AgentlessProcess> agentless) {
    }

    /**
     * @param agentlessOnly read the binding's objects even if the dump has a registry
     * @throws BindingNotFoundException neither a registry nor an MPI binding in the dump
     * @throws io.mpilens.api.target.TargetReadException damaged or unreadable
     */
    public static DumpReading readDump(Path dump, boolean agentlessOnly, HprofTargetReader.Progress progress) {
        try (HprofTargetReader reader = HprofTargetReader.open(dump, progress)) {
            if (!agentlessOnly) {
                try {
                    return new DumpReading(HeapDumps.decode(reader), List.of());
                } catch (RegistryNotFoundException e) {
                    // no agent ran there: fall back to the binding's own objects
                }
            }
            return new DumpReading(List.of(), BindingObjects.read(reader, reader));
        }
    }
}
