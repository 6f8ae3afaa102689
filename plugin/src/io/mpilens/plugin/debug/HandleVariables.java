package io.mpilens.plugin.debug;

import com.sun.jdi.ObjectReference;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.WrapperLookup;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.plugin.model.HandleDetails;
import io.mpilens.plugin.model.HandleLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.model.ILogicalStructureTypeDelegate;
import org.eclipse.debug.core.model.ILogicalStructureTypeDelegate2;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.jdt.debug.core.IJavaClassType;
import org.eclipse.jdt.debug.core.IJavaFieldVariable;
import org.eclipse.jdt.debug.core.IJavaObject;
import org.eclipse.jdt.debug.core.IJavaPrimitiveValue;
import org.eclipse.jdt.debug.core.IJavaType;
import org.eclipse.jdt.internal.debug.core.model.JDIDebugTarget;
import org.eclipse.jdt.internal.debug.core.model.JDIObjectValue;

/**
 * Variables view: a variable whose value is an MPI handle wrapper of either binding shows the
 * registry's information about that handle (lifecycle, reference count, rank/size, members…)
 * as its children — a logical structure, so no code runs in the target. The JVM's registry is
 * read once per suspend (cached per debug target until it resumes) with the same JDI reader
 * the views use; the Variables view asks from its own background jobs, never the UI thread.
 */
public final class HandleVariables implements ILogicalStructureTypeDelegate, ILogicalStructureTypeDelegate2,
        IDebugEventSetListener {
    /** Last read per rank JVM, dropped when anything in it resumes or terminates. */
    private final Map<IDebugTarget, Moment> moments = new ConcurrentHashMap<>();

    /**
     * One read of a JVM's registry: the snapshots, and the way from a wrapper object to its
     * handle id ({@link WrapperLookup}: the wrapper's id field, else the wrapper index).
     */
    private record Moment(List<ProcessSnapshot> jvm, JdiTargetReader reader, WrapperLookup ids) {
        static Moment read(VirtualMachine vm, String label) {
            List<ProcessSnapshot> jvm = MpiJob.decode(vm, label);
            JdiTargetReader reader = JdiTargetReader.wrap(vm, label);
            return new Moment(jvm, reader, new WrapperLookup(reader));
        }

        /**
         * The registry id of the wrapper: from its own id field (one read), else by its identity
         * in the wrapper index (read once per suspend); 0 when neither knows it. The Variables
         * view asks from several jobs at once.
         */
        long idOf(ObjectReference wrapper) {
            if (wrapper == null) return 0;
            synchronized (ids) {
                return ids.idOf(reader.object(wrapper));
            }
        }
    }

    public HandleVariables() {
        DebugPlugin.getDefault().addDebugEventListener(this);
    }

    @Override
    public boolean providesLogicalStructure(IValue value) {
        try {
            return value instanceof IJavaObject o && !o.isNull() && kindOf(o) != null;
        } catch (DebugException e) {
            return false;
        }
    }

    @Override
    public String getDescription(IValue value) {
        return "MPI handle (mpilens registry)";
    }

    /**
     * Never throws: the Variables view shows a variable whose structure failed with no children at
     * all (a JDI error, e.g. the rank resumed or died while the view asked), which reads as "this
     * handle has nothing"; a one-line reason is shown instead.
     */
    @Override
    public IValue getLogicalStructure(IValue value) throws CoreException {
        IJavaObject o = (IJavaObject) value;
        IDebugTarget target = o.getDebugTarget();
        try {
            return structure(o, target);
        } catch (RegistryNotFoundException e) {
            return HandleValue.message(target, "no mpilens registry in this JVM: " + e.getMessage());
        } catch (CoreException | RuntimeException e) {
            return HandleValue.message(target, "registry not read: " + e);
        }
    }

    private IValue structure(IJavaObject o, IDebugTarget target) throws CoreException {
        HandleKind kind = kindOf(o);
        if (!(target instanceof JDIDebugTarget jt) || jt.getVM() == null) {
            return HandleValue.message(target, "not a live Java debug target");
        }
        Moment moment = moments.computeIfAbsent(target, t -> Moment.read(jt.getVM(), jt.toString()));
        // by identity in the agent's wrapper index (both bindings, freed wrappers included); Open
        // MPI requests are not in it and are found by the native handle the binding keeps
        long id = o instanceof JDIObjectValue jo ? moment.idOf(jo.getUnderlyingObject()) : 0;
        Optional<HandleLookup.Found> found = id == 0 ? Optional.empty() : HandleLookup.byId(moment.jvm(), id);
        if (id == 0) {
            IJavaFieldVariable nativeHandle = o.getField("handle", false);
            if (nativeHandle != null && nativeHandle.getValue() instanceof IJavaPrimitiveValue p
                    && "long".equals(p.getReferenceTypeName())) {
                found = HandleLookup.byNativeHandle(moment.jvm(), kind, p.getLongValue());
            }
        }
        if (found.isEmpty()) {
            String what = kind.name().toLowerCase();
            return HandleValue.message(target, id != 0
                    ? what + " " + HandleIds.label(id) + " was released (freed and no longer held); it is in the registry's history"
                    : "no " + what + " in the mpilens registry for this wrapper: released, or created before the"
                            + " agent was attached");
        }
        HandleLookup.Found f = found.get();
        List<HandleDetails.Field> fields = new ArrayList<>();
        fields.add(new HandleDetails.Field("Process", "rank " + f.process().rank() + " of " + f.process().worldSize()
                + ", pid " + f.process().pid()));
        fields.addAll(HandleDetails.of(f.handle()));
        return new HandleValue(target, f.handle().kind() + " " + HandleIds.label(f.handle().id()),
                fields);
    }

    /** The handle kind of the object's class or a superclass, or null. */
    static HandleKind kindOf(IJavaObject o) throws DebugException {
        List<String> chain = new ArrayList<>();
        IJavaType t = o.getJavaType();
        while (t instanceof IJavaClassType c) {
            chain.add(c.getName());
            t = c.getSuperclass();
        }
        return HandleLookup.kindOf(chain);
    }

    @Override
    public void handleDebugEvents(DebugEvent[] events) {
        for (DebugEvent e : events) {
            int k = e.getKind();
            if (k == DebugEvent.RESUME || k == DebugEvent.TERMINATE || k == DebugEvent.SUSPEND) {
                if (e.getSource() instanceof IDebugElement d && d.getDebugTarget() != null) {
                    // a suspend starts a new moment too: the registry may have changed since the last read
                    if (k != DebugEvent.SUSPEND || e.getDetail() != DebugEvent.EVALUATION_IMPLICIT) moments.remove(d.getDebugTarget());
                }
            }
        }
    }
}
