package io.mpilens.plugin.debug;

import io.mpilens.plugin.model.HandleDetails;
import java.util.List;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;

/**
 * What the Variables view shows under an MPI handle variable: one child per field of the
 * registry row ({@link HandleDetails}), or one child saying why there is none. Plain values,
 * read once: nothing here talks to the target.
 */
public final class HandleValue extends DebugElement implements IValue {
    /** The debug model of these elements (their labels come from {@code HandlePresentation}). */
    public static final String MODEL = "io.mpilens.plugin.handles";

    private final String summary;
    private final IVariable[] children;

    HandleValue(IDebugTarget target, String summary, List<HandleDetails.Field> fields) {
        super(target);
        this.summary = summary;
        children = new IVariable[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            HandleDetails.Field f = fields.get(i);
            children[i] = new Field(target, f.label(), new HandleValue(target, f.value(), List.of()));
        }
    }

    static HandleValue message(IDebugTarget target, String why) {
        return new HandleValue(target, why, List.of(new HandleDetails.Field("mpilens", why)));
    }

    @Override
    public String getModelIdentifier() {
        return MODEL;
    }

    @Override
    public String getReferenceTypeName() {
        return "";
    }

    @Override
    public String getValueString() {
        return summary;
    }

    @Override
    public boolean isAllocated() {
        return true;
    }

    @Override
    public IVariable[] getVariables() {
        return children.clone();
    }

    @Override
    public boolean hasVariables() {
        return children.length > 0;
    }

    @Override
    public String toString() {
        return summary;
    }

    /** One field of the handle: a read-only variable. */
    static final class Field extends DebugElement implements IVariable {
        private final String name;
        private final HandleValue value;

        Field(IDebugTarget target, String name, HandleValue value) {
            super(target);
            this.name = name;
            this.value = value;
        }

        @Override
        public String getModelIdentifier() {
            return MODEL;
        }

        @Override
        public IValue getValue() {
            return value;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getReferenceTypeName() {
            return "";
        }

        @Override
        public boolean hasValueChanged() {
            return false;
        }

        @Override
        public void setValue(String expression) {
            throw new UnsupportedOperationException("MPI handle fields are read-only");
        }

        @Override
        public void setValue(IValue v) {
            throw new UnsupportedOperationException("MPI handle fields are read-only");
        }

        @Override
        public boolean supportsValueModification() {
            return false;
        }

        @Override
        public boolean verifyValue(String expression) {
            return false;
        }

        @Override
        public boolean verifyValue(IValue v) {
            return false;
        }

        @Override
        public String toString() {
            return name + " = " + value.getValueString();
        }
    }
}
