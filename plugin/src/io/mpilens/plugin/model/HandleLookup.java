package io.mpilens.plugin.model;

import io.mpilens.api.binding.BindingClasses;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.List;
import java.util.Optional;

/**
 * Finds the registry handle of a binding wrapper object seen in the debugger (a variable of
 * type {@code mpi.Intracomm}, {@code mpi.Request}…) among the snapshots of its JVM: by the
 * registry id that {@code RegistryDecoder.wrapperIds()} gives for the wrapper's identity (both
 * bindings, freed wrappers included), or, for Open MPI requests (not in the agent's wrapper
 * index), by the native handle the wrapper carries ({@code handle} field) matched against the
 * registry's C handle (see {@code plugin.debug.HandleVariables}).
 */
public final class HandleLookup {
    private HandleLookup() {
    }

    /** One handle and the process (rank) whose registry row it is. */
    public record Found(ProcessSnapshot process, HandleInfo handle) {
    }

    /**
     * The kind of handle a wrapper class stands for.
     *
     * @param classAndSupers the object's class name, then its superclasses' names, nearest first
     * @return null when none of them is an MPI handle class
     */
    public static HandleKind kindOf(List<String> classAndSupers) {
        for (String c : classAndSupers) {
            HandleKind k = BindingClasses.kindInAnyBinding(c); // the classes the agent's profiles intercept
            if (k != null) return k;
        }
        return null;
    }

    /**
     * The live handle of {@code kind} with native handle {@code cHandle}. A native handle the MPI
     * library reuses may also name released rows; the one still alive wins, then the newest.
     */
    public static Optional<Found> byNativeHandle(List<ProcessSnapshot> jvm, HandleKind kind, long cHandle) {
        Found best = null;
        for (ProcessSnapshot p : jvm) {
            for (HandleInfo h : p.handles()) {
                if (h.kind() != kind || !h.hasCHandle() || h.cHandle() != cHandle) continue;
                if (best == null || better(h, best.handle())) best = new Found(p, h);
            }
        }
        return Optional.ofNullable(best);
    }

    /** The handle with registry id {@code id} (ids are per JVM: one registry holds all its ranks). */
    public static Optional<Found> byId(List<ProcessSnapshot> jvm, long id) {
        for (ProcessSnapshot p : jvm) {
            for (HandleInfo h : p.handles()) {
                if (h.id() == id) return Optional.of(new Found(p, h));
            }
        }
        return Optional.empty();
    }

    private static boolean better(HandleInfo h, HandleInfo than) {
        boolean alive = h.state() != Lifecycle.RELEASED;
        boolean thanAlive = than.state() != Lifecycle.RELEASED;
        if (alive != thanAlive) return alive;
        return h.id() > than.id();
    }
}
