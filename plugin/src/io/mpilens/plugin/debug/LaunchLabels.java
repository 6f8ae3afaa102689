package io.mpilens.plugin.debug;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.internal.ui.DebugUIMessages;
import org.eclipse.debug.internal.ui.model.elements.DebugElementLabelProvider;
import org.eclipse.debug.internal.ui.viewers.model.provisional.IPresentationContext;
import org.eclipse.jface.viewers.TreePath;

/**
 * The Debug view's label of an {@link MpiLaunch} (its adapter): a launch without a launch
 * configuration (attached, heap dumps, read across hosts) is named {@link MpiLaunch#label()}
 * where Eclipse writes {@code <unknown>}; the rest ({@code <terminated>}, a configuration's name
 * and type, image, colours) is Eclipse's own.
 */
final class LaunchLabels extends DebugElementLabelProvider {
    static final LaunchLabels INSTANCE = new LaunchLabels();

    private LaunchLabels() {
    }

    @Override
    protected String getLabel(TreePath path, IPresentationContext context, String columnId) throws CoreException {
        String label = super.getLabel(path, context, columnId);
        if (label != null && path.getLastSegment() instanceof MpiLaunch l && l.getLaunchConfiguration() == null) {
            return label.replace(DebugUIMessages.DefaultLabelProvider__unknown__1, l.label());
        }
        return label;
    }
}
