package io.mpilens.plugin.debug;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jdi.VMDisconnectedException;
import java.lang.reflect.Proxy;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;
import org.eclipse.jdt.debug.core.IJavaObject;
import org.junit.jupiter.api.Test;

/**
 * The Variables view gives a variable whose logical structure threw no children at all, which
 * reads as "this handle has nothing": {@link HandleVariables} answers with the reason instead.
 * (Real handles over JDI are in {@code MpiViewsInWorkbenchTest}; this is the failure seam.)
 */
class HandleVariablesTest {
    @Test
    void aDebugExceptionWhileReadingIsShownAsTheReason() throws Exception {
        IValue shown = new HandleVariables().getLogicalStructure(failing(
                new DebugException(new Status(IStatus.ERROR, "test", "thread not suspended"))));
        assertReason(shown, "thread not suspended");
    }

    @Test
    void aJdiRuntimeExceptionWhileReadingIsShownAsTheReason() throws Exception {
        IValue shown = new HandleVariables().getLogicalStructure(failing(new VMDisconnectedException("rank 2 died")));
        assertReason(shown, "rank 2 died");
    }

    private static void assertReason(IValue shown, String cause) throws Exception {
        assertTrue(shown.getValueString().startsWith("registry not read: ") && shown.getValueString().contains(cause),
                shown.getValueString());
        IVariable[] children = shown.getVariables();
        assertEquals(1, children.length);
        assertEquals("mpilens", children[0].getName());
        assertEquals(shown.getValueString(), children[0].getValue().getValueString());
    }

    /** A Java object of a live target whose type cannot be read: every other call is not expected. */
    private static IJavaObject failing(Exception e) {
        return (IJavaObject) Proxy.newProxyInstance(HandleVariablesTest.class.getClassLoader(),
                new Class<?>[] {IJavaObject.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getDebugTarget" -> null;
                    case "getJavaType" -> throw e;
                    case "toString" -> "failing object";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
