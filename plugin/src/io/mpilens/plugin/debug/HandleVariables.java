package io.mpilens.plugin.debug;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.registry.RegistryNotFoundException;
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
    private static final String REGISTRY_CLASS = "io.mpilens.agent.registry.HandleRegistry";

    /** Last read per rank JVM, dropped when anything in it resumes or terminates. */
    private final Map<IDebugTarget, List<ProcessSnapshot>> snapshots = new ConcurrentHashMap<>();

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

    @Override
    public IValue getLogicalStructure(IValue value) throws CoreException {
        IJavaObject o = (IJavaObject) value;
        HandleKind kind = kindOf(o);
        IDebugTarget target = o.getDebugTarget();
        if (!(target instanceof JDIDebugTarget jt) || jt.getVM() == null) {
            return HandleValue.message(target, "not a live Java debug target");
        }
        List<ProcessSnapshot> jvm;
        try {
            jvm = snapshots.computeIfAbsent(target, t -> MpiJobs.decode(jt.getVM(), jt.toString()));
        } catch (RegistryNotFoundException e) {
            return HandleValue.message(target, "no mpilens registry in this JVM: " + e.getMessage());
        } catch (RuntimeException e) {
            return HandleValue.message(target, "registry not read: " + e);
        }
        Optional<HandleLookup.Found> found;
        IJavaFieldVariable nativeHandle = o.getField("handle", false);
        if (nativeHandle != null && nativeHandle.getValue() instanceof IJavaPrimitiveValue p
                && "long".equals(p.getReferenceTypeName())) {
            found = HandleLookup.byNativeHandle(jvm, kind, p.getLongValue()); // Open MPI
        } else {
            long id = idByIdentity(jt.getVM(), o);
            found = id == 0 ? Optional.empty() : HandleLookup.byId(jvm, id); // MPJ Express
        }
        if (found.isEmpty()) {
            return HandleValue.message(target, "no live " + kind.name().toLowerCase() + " in the mpilens registry for this"
                    + " wrapper: freed by the application (after free() it no longer names its handle; an orphan shows"
                    + " in MPI Handles), released, or created before the agent was attached");
        }
        HandleLookup.Found f = found.get();
        List<HandleDetails.Field> fields = new ArrayList<>();
        fields.add(new HandleDetails.Field("Process", "rank " + f.process().rank() + " of " + f.process().worldSize()
                + ", pid " + f.process().pid()));
        fields.addAll(HandleDetails.of(f.handle()));
        return new HandleValue(target, f.handle().kind() + " #" + f.handle().id(),
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

    /**
     * MPJ Express wrappers have no native handle: look the object up by identity in the agent's
     * wrapper index ({@code HandleRegistry.INSTANCE.wrappers.table[]}, weak entries holding the
     * registry slot) and read the id of that slot. Reads only; 0 when not found.
     */
    private static long idByIdentity(VirtualMachine vm, IJavaObject o) {
        if (!(o instanceof JDIObjectValue jo) || jo.getUnderlyingObject() == null) return 0;
        ObjectReference wanted = jo.getUnderlyingObject();
        for (ReferenceType rt : vm.classesByName(REGISTRY_CLASS)) {
            Field instance = rt.fieldByName("INSTANCE");
            if (instance == null || !(rt.getValue(instance) instanceof ObjectReference reg)) continue;
            ObjectReference wrappers = object(reg, "wrappers");
            ArrayReference table = wrappers == null ? null : (ArrayReference) object(wrappers, "table");
            if (table == null) continue;
            for (Value v : table.getValues()) {
                if (!(v instanceof ObjectReference entry)) continue;
                if (!wanted.equals(object(entry, "referent"))) continue;
                Value slotValue = entry.getValue(field(entry, "slot"));
                if (!(slotValue instanceof IntegerValue slot)) return 0;
                return idOfSlot(reg, slot.value());
            }
        }
        return 0;
    }

    /** Requests are in the packed request table (slot tagged with bit 30), the rest in {@code id[]}. */
    private static long idOfSlot(ObjectReference reg, int slot) {
        final int requestSlot = 1 << 30;
        boolean request = (slot & requestSlot) != 0;
        ArrayReference column = (ArrayReference) object(reg, request ? "reqs" : "id");
        if (column == null) return 0;
        int index = request ? (slot & ~requestSlot) * RegistryLayout.REQ_STRIDE : slot;
        if (index < 0 || index >= column.length()) return 0;
        return column.getValue(index) instanceof LongValue l ? l.value() : 0;
    }

    private static ObjectReference object(ObjectReference o, String name) {
        Field f = field(o, name);
        return f == null ? null : o.getValue(f) instanceof ObjectReference r ? r : null;
    }

    private static Field field(ObjectReference o, String name) {
        ReferenceType t = o.referenceType();
        Field f = t.fieldByName(name);
        if (f == null && t instanceof ClassType c) {
            for (ClassType s = c.superclass(); s != null && f == null; s = s.superclass()) f = s.fieldByName(name);
        }
        return f;
    }

    @Override
    public void handleDebugEvents(DebugEvent[] events) {
        for (DebugEvent e : events) {
            int k = e.getKind();
            if (k == DebugEvent.RESUME || k == DebugEvent.TERMINATE || k == DebugEvent.SUSPEND) {
                if (e.getSource() instanceof IDebugElement d && d.getDebugTarget() != null) {
                    // a suspend starts a new moment too: the registry may have changed since the last read
                    if (k != DebugEvent.SUSPEND || e.getDetail() != DebugEvent.EVALUATION_IMPLICIT) snapshots.remove(d.getDebugTarget());
                }
            }
        }
    }
}
