package io.mpilens.plugin.dumps;

import java.util.List;
import org.eclipse.core.runtime.IPath;
import org.eclipse.ui.IEditorLauncher;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;

/** Opening a {@code .hprof} file (Project Explorer, File > Open File…) reads it into the MPI views. */
public final class HeapDumpLauncher implements IEditorLauncher {
    @Override
    public void open(IPath file) {
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow() == null ? null
                : PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        if (page != null) {
            try {
                page.showView("io.mpilens.views.handles");
            } catch (PartInitException e) {
                // the views show the dump once opened
            }
        }
        HeapDumpViews.open(List.of(file.toPath()));
    }
}
