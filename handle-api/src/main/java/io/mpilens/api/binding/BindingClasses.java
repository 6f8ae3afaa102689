package io.mpilens.api.binding;

import io.mpilens.api.model.HandleKind;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The handle classes of each Java binding and the kind of MPI object each wraps: one list, used
 * by the agent's profiles (what to intercept) and by agentless mode (whose instances to read).
 * A subclass (Intracomm, CartComm, Prequest, ...) has the kind of the class it extends.
 */
public final class BindingClasses {
    private final String id;
    private final Map<String, HandleKind> handleClasses;
    private final Set<String> internalClasses;

    private BindingClasses(String id, Map<String, HandleKind> handleClasses, Set<String> internalClasses) {
        this.id = id;
        this.handleClasses = Collections.unmodifiableMap(handleClasses);
        this.internalClasses = internalClasses;
    }

    public static final BindingClasses OPEN_MPI = new BindingClasses("openmpi", kinds(
            "mpi.Comm", HandleKind.COMMUNICATOR, "mpi.Request", HandleKind.REQUEST,
            "mpi.Datatype", HandleKind.DATATYPE, "mpi.Group", HandleKind.GROUP, "mpi.Win", HandleKind.WINDOW,
            "mpi.Errhandler", HandleKind.ERRHANDLER, "mpi.Op", HandleKind.OP, "mpi.Info", HandleKind.INFO,
            "mpi.File", HandleKind.FILE, "mpi.Message", HandleKind.MESSAGE), Set.of());

    public static final BindingClasses MPJ_EXPRESS = new BindingClasses("mpj", kinds(
            "mpi.Comm", HandleKind.COMMUNICATOR, "mpi.Request", HandleKind.REQUEST,
            "mpi.Datatype", HandleKind.DATATYPE, "mpi.Group", HandleKind.GROUP,
            "mpi.Errhandler", HandleKind.ERRHANDLER, "mpi.Op", HandleKind.OP),
            // mpi.Intracomm delegates to an IntracommImpl (PureIntracomm, NativeIntracomm), itself a Comm
            Set.of("mpi.IntracommImpl"));

    /** The kind a class of either binding wraps (the class itself, not its superclasses); null if none. */
    public static HandleKind kindInAnyBinding(String className) {
        HandleKind k = OPEN_MPI.handleClasses.get(className);
        return k != null ? k : MPJ_EXPRESS.handleClasses.get(className);
    }

    /** The binding profile id: {@code openmpi}, {@code mpj}. */
    public String id() {
        return id;
    }

    /** Binary class name to kind, in a fixed order. */
    public Map<String, HandleKind> handleClasses() {
        return handleClasses;
    }

    /** Subclasses of handle classes that are the binding's internals, not MPI objects of the application. */
    public Set<String> internalClasses() {
        return internalClasses;
    }

    private static Map<String, HandleKind> kinds(Object... pairs) {
        Map<String, HandleKind> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put((String) pairs[i], (HandleKind) pairs[i + 1]);
        return m;
    }
}
