package io.mpilens.plugin.dumps;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.FileDialog;
import org.eclipse.ui.handlers.HandlerUtil;

/** "Open Heap Dumps in MPI Views…": choose one dump per rank JVM; they are read in the background. */
public final class OpenHeapDumpHandler extends AbstractHandler {
    @Override
    public Object execute(ExecutionEvent event) {
        FileDialog d = new FileDialog(HandlerUtil.getActiveShell(event), SWT.OPEN | SWT.MULTI);
        d.setText("Open Heap Dumps in MPI Views");
        d.setFilterExtensions(new String[] {"*.hprof;*.hprof.gz", "*.*"});
        d.setFilterNames(new String[] {"Heap dumps (*.hprof, *.hprof.gz)", "All files"});
        if (d.open() == null) return null;
        List<Path> dumps = new ArrayList<>();
        for (String name : d.getFileNames()) dumps.add(Path.of(d.getFilterPath(), name));
        HeapDumpViews.open(dumps);
        return null;
    }
}
