package io.mpilens.plugin.views;

import io.mpilens.plugin.model.HandleColumn;
import io.mpilens.plugin.model.HandleTree;
import io.mpilens.plugin.model.HandleTree.HandleRow;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.StatePalette;
import org.eclipse.jface.viewers.ILazyTreeContentProvider;
import org.eclipse.jface.viewers.ITableColorProvider;
import org.eclipse.jface.viewers.ITableFontProvider;
import org.eclipse.jface.viewers.ITableLabelProvider;
import org.eclipse.jface.viewers.LabelProvider;
import org.eclipse.jface.viewers.TreeViewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.graphics.FontData;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Tree;
import org.eclipse.swt.widgets.TreeColumn;

/**
 * MPI Handles: job → rank → kind → handle in a virtual tree; only the rows on screen are
 * created, so a rank with 100k requests costs what one screenful costs.
 */
public final class HandlesView extends JobViewPart {
    public static final String ID = "io.mpilens.views.handles";
    private static final HandleColumn[] COLUMNS = HandleColumn.values();

    /** The viewer's input; its tree is replaced on each read so {@code refresh} keeps expansion. */
    static final class Input {
        volatile HandleTree tree = new HandleTree(JobView.NONE);
    }

    private final Input input = new Input();
    private TreeViewer viewer;
    private Font bold;

    @Override
    protected Control createContent(Composite parent) {
        viewer = new TreeViewer(parent, SWT.VIRTUAL | SWT.FULL_SELECTION | SWT.MULTI | SWT.BORDER);
        viewer.setUseHashlookup(true);
        Tree tree = viewer.getTree();
        tree.setHeaderVisible(true);
        tree.setLinesVisible(true);
        for (HandleColumn c : COLUMNS) {
            TreeColumn col = new TreeColumn(tree, SWT.LEFT);
            col.setText(c.title());
            col.setWidth(c.width());
        }
        FontData fd = tree.getFont().getFontData()[0];
        bold = new Font(tree.getDisplay(), fd.getName(), fd.getHeight(), SWT.BOLD);
        tree.addDisposeListener(e -> bold.dispose());
        viewer.setContentProvider(new LazyContent());
        viewer.setLabelProvider(new Labels());
        viewer.setInput(input);
        getSite().setSelectionProvider(viewer);
        return tree;
    }

    @Override
    protected void show(JobView job) {
        boolean first = input.tree.job().ranks().isEmpty();
        input.tree = new HandleTree(job);
        viewer.refresh();
        if (first && !job.ranks().isEmpty()) viewer.expandToLevel(2); // job and its ranks
    }

    /** The viewer (tests expand and screenshot it). */
    public TreeViewer viewer() {
        return viewer;
    }

    public HandleTree tree() {
        return input.tree;
    }

    @Override
    public void setFocus() {
        viewer.getControl().setFocus();
    }

    private final class LazyContent implements ILazyTreeContentProvider {
        private Object node(Object parent) {
            return parent == input ? input.tree : parent;
        }

        @Override
        public void updateElement(Object parent, int index) {
            Object child = input.tree.child(node(parent), index);
            if (child == null) return;
            viewer.replace(parent, index, child);
            viewer.setChildCount(child, input.tree.childCount(child));
        }

        @Override
        public void updateChildCount(Object element, int currentChildCount) {
            int n = input.tree.childCount(node(element));
            if (n != currentChildCount) viewer.setChildCount(element, n);
        }

        @Override
        public Object getParent(Object element) {
            Object p = input.tree.parent(element);
            return p == input.tree ? input : p;
        }
    }

    private final class Labels extends LabelProvider implements ITableLabelProvider, ITableColorProvider, ITableFontProvider {
        @Override
        public Image getColumnImage(Object element, int column) {
            return null;
        }

        @Override
        public String getColumnText(Object element, int column) {
            return COLUMNS[column].text(input.tree, element);
        }

        @Override
        public Color getForeground(Object element, int column) {
            return element instanceof HandleRow r ? Colors.of(StatePalette.foreground(r.handle())) : null;
        }

        @Override
        public Color getBackground(Object element, int column) {
            return null;
        }

        @Override
        public Font getFont(Object element, int column) {
            return element instanceof HandleRow r && StatePalette.emphasised(r.handle()) ? bold : null;
        }
    }
}
