package io.mpilens.headless.hprof;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import java.nio.file.Path;
import java.util.List;

/**
 * The MPI processes recorded in a heap dump, decoded by the same {@link RegistryDecoder} that
 * reads live JVMs.
 *
 * <pre>{@code
 * for (ProcessSnapshot p : HeapDumps.read(Path.of("mpilens-rank3-pid4242.hprof"))) {
 *     p.orphans().forEach(System.out::println);
 * }
 * }</pre>
 */
public final class HeapDumps {
    private HeapDumps() {
    }

    /**
     * @throws TargetReadException the file cannot be read, is not a heap dump, or is damaged
     * @throws RegistryNotFoundException the dumped JVM had no mpilens agent
     * @throws UnsupportedLayoutException the agent there was of another version
     */
    public static List<ProcessSnapshot> read(Path dump) {
        return read(dump, null);
    }

    public static List<ProcessSnapshot> read(Path dump, HprofTargetReader.Progress progress) {
        try (HprofTargetReader reader = HprofTargetReader.open(dump, progress)) {
            return decode(reader);
        }
    }

    /**
     * Decodes through an open reader. A damaged dump can hand the decoder values no live JVM
     * would (a field of another type, a negative length): that is reported as damage, not as a
     * defect of mpilens.
     */
    public static List<ProcessSnapshot> decode(HprofTargetReader reader) {
        try {
            return new RegistryDecoder(reader).decode();
        } catch (TargetReadException | RegistryNotFoundException | UnsupportedLayoutException e) {
            throw e;
        } catch (ClassCastException | IndexOutOfBoundsException | NegativeArraySizeException | ArithmeticException
                 | IllegalArgumentException | NullPointerException e) {
            throw new TargetReadException(reader.describe() + " is damaged: its mpilens registry does not decode ("
                    + e + ")", e);
        }
    }
}
