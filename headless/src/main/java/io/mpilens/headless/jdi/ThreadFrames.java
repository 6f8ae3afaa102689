package io.mpilens.headless.jdi;

import com.sun.jdi.Field;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which MPI call each thread of a target is inside, read from its stack frames. Reads only:
 * frames, {@code this}, argument values and one field; never invokes a method. A thread is
 * suspended just while its frames are read, unless the whole VM already is.
 */
public final class ThreadFrames {
    /** Binding classes live in the {@code mpi} package in both Open MPI's and MPJ Express's bindings. */
    private static final String BINDING_PACKAGE = "mpi.";
    private static final String HANDLE_FIELD = "handle";

    private ThreadFrames() {
    }

    /** @param vmSuspended the caller suspended the whole VM, so threads need no suspension of their own */
    public static List<BindingFrame> read(VirtualMachine vm, boolean vmSuspended) {
        List<BindingFrame> out = new ArrayList<>();
        for (ThreadReference t : vm.allThreads()) {
            BindingFrame f = read(t, vmSuspended);
            if (f != null) out.add(f);
        }
        return Collections.unmodifiableList(out);
    }

    private static BindingFrame read(ThreadReference t, boolean vmSuspended) {
        boolean suspended = false;
        try {
            if (!vmSuspended) {
                t.suspend();
                suspended = true;
            }
            List<StackFrame> frames = t.frames();
            // frames are innermost first: the outermost binding frame is the application's call
            for (int i = frames.size() - 1; i >= 0; i--) {
                StackFrame f = frames.get(i);
                String declaring = f.location().declaringType().name();
                if (!declaring.startsWith(BINDING_PACKAGE)) continue;
                ObjectReference self = f.thisObject();
                List<Integer> ints = new ArrayList<>();
                for (Value v : argumentValues(f)) ints.add(v instanceof IntegerValue ? ((IntegerValue) v).value() : null);
                return new BindingFrame(t.name(), declaring, f.location().method().name(),
                        self == null ? null : self.referenceType().name(), handleOf(self), ints);
            }
            return null;
        } catch (IncompatibleThreadStateException | ObjectCollectedException | com.sun.jdi.InternalException e) {
            return null; // a thread that ended or was not suspendable: not inside a call we can show
        } finally {
            if (suspended) {
                try {
                    t.resume();
                } catch (ObjectCollectedException ignored) {
                    // the thread ended meanwhile
                }
            }
        }
    }

    private static List<Value> argumentValues(StackFrame f) {
        try {
            return f.getArgumentValues();
        } catch (RuntimeException e) { // native or otherwise unreadable frame: no arguments
            return List.of();
        }
    }

    private static Long handleOf(ObjectReference self) {
        if (self == null) return null;
        Field field = self.referenceType().fieldByName(HANDLE_FIELD);
        if (field == null || field.isStatic()) return null;
        Value v = self.getValue(field);
        return v instanceof LongValue ? ((LongValue) v).value() : null;
    }
}
