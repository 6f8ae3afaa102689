package io.mpilens.plugin.debug;

import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;
import org.eclipse.debug.ui.IDebugModelPresentation;
import org.eclipse.debug.ui.IValueDetailListener;
import org.eclipse.jface.viewers.LabelProvider;
import org.eclipse.ui.IEditorInput;

/** Labels of the MPI handle fields in the Variables view: {@code name = value}. */
public final class HandlePresentation extends LabelProvider implements IDebugModelPresentation {
    @Override
    public void setAttribute(String attribute, Object value) {
        // no options
    }

    @Override
    public String getText(Object element) {
        try {
            if (element instanceof IVariable v) return v.getName() + " = " + v.getValue().getValueString();
            if (element instanceof IValue v) return v.getValueString();
        } catch (DebugException e) {
            return e.getMessage();
        }
        return null;
    }

    @Override
    public void computeDetail(IValue value, IValueDetailListener listener) {
        String s;
        try {
            s = value.getValueString();
        } catch (DebugException e) {
            s = e.getMessage();
        }
        listener.detailComputed(value, s);
    }

    @Override
    public IEditorInput getEditorInput(Object element) {
        return null;
    }

    @Override
    public String getEditorId(IEditorInput input, Object element) {
        return null;
    }
}
