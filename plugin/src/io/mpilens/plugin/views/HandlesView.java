package io.mpilens.plugin.views;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.TypeMap;
import io.mpilens.plugin.model.CreationSite;
import io.mpilens.plugin.model.HandleColumn;
import io.mpilens.plugin.model.HandleDetails;
import io.mpilens.plugin.model.HandleFilter;
import io.mpilens.plugin.model.HandleFilter.LifecycleChoice;
import io.mpilens.plugin.model.HandleTree;
import io.mpilens.plugin.model.HandleTree.HandleRow;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.StatePalette;
import io.mpilens.plugin.model.TypeMapStrip;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.jface.action.MenuManager;
import org.eclipse.jface.viewers.ILazyTreeContentProvider;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.ITableColorProvider;
import org.eclipse.jface.viewers.ITableFontProvider;
import org.eclipse.jface.viewers.ITableLabelProvider;
import org.eclipse.jface.viewers.LabelProvider;
import org.eclipse.jface.viewers.TreePath;
import org.eclipse.jface.viewers.TreeSelection;
import org.eclipse.jface.viewers.TreeViewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.SashForm;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.graphics.FontData;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.swt.widgets.Tree;
import org.eclipse.swt.widgets.TreeColumn;
import org.eclipse.swt.widgets.TreeItem;

/**
 * MPI Handles: job → rank → kind → handle in a virtual tree; only the rows on screen are
 * created, so a rank with 100k requests costs what one screenful costs. A filter bar above
 * (kind, lifecycle, text), a details pane below with every field of the selected handle.
 */
public final class HandlesView extends JobViewPart {
    public static final String ID = "io.mpilens.views.handles";
    private static final HandleColumn[] COLUMNS = HandleColumn.values();

    /** The viewer's input; its tree is replaced on each read so {@code refresh} keeps expansion. */
    static final class Input {
        volatile HandleTree tree = new HandleTree(JobView.NONE);
    }

    private static final HandleKind[] KINDS = HandleKind.values();
    private static final LifecycleChoice[] LIFECYCLES = LifecycleChoice.values();

    private final Input input = new Input();
    private TreeViewer viewer;
    private Font bold;
    private Combo kindCombo;
    private Combo lifecycleCombo;
    private Text textFilter;
    private Label filterSummary;
    private Table details;
    private TypeMapCanvas typeMap;
    private HandleFilter filter = HandleFilter.ALL;
    private String status;
    private final Action showHolders = new Action("Show Holders") {
        @Override
        public void run() {
            showHolders();
        }
    };
    private final Action openCreationSite = new Action("Open Creation Site") {
        @Override
        public void run() {
            openCreationSite();
        }
    };

    @Override
    protected Control createContent(Composite parent) {
        Composite content = new Composite(parent, SWT.NONE);
        GridLayout layout = new GridLayout(1, false);
        layout.marginWidth = 0;
        layout.marginHeight = 0;
        content.setLayout(layout);
        createFilterBar(content);
        SashForm sash = new SashForm(content, SWT.VERTICAL);
        sash.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        createTree(sash);
        createDetails(sash);
        sash.setWeights(68, 32);
        createActions();
        return content;
    }

    private void createFilterBar(Composite parent) {
        Composite bar = new Composite(parent, SWT.NONE);
        bar.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        GridLayout layout = new GridLayout(4, false);
        layout.marginHeight = 0;
        bar.setLayout(layout);
        kindCombo = new Combo(bar, SWT.READ_ONLY | SWT.DROP_DOWN);
        kindCombo.add("All kinds");
        for (HandleKind k : KINDS) kindCombo.add(kindLabel(k));
        kindCombo.select(0);
        kindCombo.setToolTipText("Show one kind of handle");
        lifecycleCombo = new Combo(bar, SWT.READ_ONLY | SWT.DROP_DOWN);
        for (LifecycleChoice c : LIFECYCLES) lifecycleCombo.add(c.label());
        lifecycleCombo.select(0);
        lifecycleCombo.setToolTipText("Show handles by lifecycle: orphans are freed but still held; leaked were collected unfreed");
        textFilter = new Text(bar, SWT.SEARCH | SWT.ICON_SEARCH | SWT.ICON_CANCEL);
        textFilter.setMessage("name, call, creation site or id (#41, r2)");
        GridData textData = new GridData(SWT.FILL, SWT.CENTER, false, false);
        textData.widthHint = 260;
        textFilter.setLayoutData(textData);
        filterSummary = new Label(bar, SWT.NONE);
        filterSummary.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        kindCombo.addListener(SWT.Selection, e -> filterChanged());
        lifecycleCombo.addListener(SWT.Selection, e -> filterChanged());
        textFilter.addListener(SWT.Modify, e -> filterChanged());
    }

    /** Field/value pairs in two halves side by side, so every field of a handle fits without scrolling. */
    private void createDetails(Composite parent) {
        Composite pane = new Composite(parent, SWT.NONE);
        GridLayout layout = new GridLayout(1, false);
        layout.marginWidth = 0;
        layout.marginHeight = 0;
        layout.verticalSpacing = 2;
        pane.setLayout(layout);
        details = new Table(pane, SWT.BORDER | SWT.FULL_SELECTION | SWT.V_SCROLL | SWT.H_SCROLL);
        details.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        details.setHeaderVisible(false);
        details.setLinesVisible(true);
        int[] widths = {150, 360, 150, 520};
        for (int w : widths) new TableColumn(details, SWT.LEFT).setWidth(w);
        typeMap = new TypeMapCanvas(pane);
        GridData stripData = new GridData(SWT.FILL, SWT.TOP, true, false);
        stripData.heightHint = TypeMapCanvas.HEIGHT;
        typeMap.control().setLayoutData(stripData);
        showTypeMap(null);
    }

    /** The strip under the details pane: shown for a datatype whose map is known, else taken out of the layout. */
    private void showTypeMap(TypeMapStrip strip) {
        typeMap.show(strip);
        GridData d = (GridData) typeMap.control().getLayoutData();
        boolean visible = strip != null;
        if (d.exclude == !visible && typeMap.control().getVisible() == visible) return;
        d.exclude = !visible;
        typeMap.control().setVisible(visible);
        typeMap.control().getParent().layout(true);
    }

    /** The type map strip shown now, null when none is (tests read it). */
    public TypeMapStrip typeMapStrip() {
        return typeMap.control().getVisible() ? typeMap.strip() : null;
    }

    private void showDetails(List<HandleDetails.Field> fields) {
        details.setRedraw(false);
        details.removeAll();
        int rows = (fields.size() + 1) / 2;
        for (int i = 0; i < rows; i++) {
            TableItem item = new TableItem(details, SWT.NONE);
            HandleDetails.Field left = fields.get(i);
            item.setText(0, left.label());
            item.setText(1, left.value());
            if (i + rows < fields.size()) {
                HandleDetails.Field right = fields.get(i + rows);
                item.setText(2, right.label());
                item.setText(3, right.value());
            }
        }
        details.setRedraw(true);
    }

    private static String kindLabel(HandleKind k) {
        String n = k.name().toLowerCase(Locale.ROOT);
        return Character.toUpperCase(n.charAt(0)) + n.substring(1) + "s";
    }

    private void filterChanged() {
        int k = kindCombo.getSelectionIndex();
        int l = lifecycleCombo.getSelectionIndex();
        setFilter(new HandleFilter(k <= 0 ? null : KINDS[k - 1], l < 0 ? LifecycleChoice.ALL : LIFECYCLES[l], textFilter.getText()));
    }

    /** Shows only the handles {@code f} accepts (the filter bar does this; tests call it directly). */
    public void setFilter(HandleFilter f) {
        if (f.equals(filter)) return;
        filter = f;
        int k = f.kind() == null ? 0 : f.kind().ordinal() + 1;
        if (kindCombo.getSelectionIndex() != k) kindCombo.select(k);
        if (lifecycleCombo.getSelectionIndex() != f.lifecycle().ordinal()) lifecycleCombo.select(f.lifecycle().ordinal());
        if (!textFilter.getText().trim().toLowerCase(Locale.ROOT).equals(f.text())) textFilter.setText(f.text());
        rebuild(input.tree.job(), !f.isAll());
    }

    private void createActions() {
        showHolders.setToolTipText("Select the handles that keep the selected orphan alive");
        openCreationSite.setToolTipText("Open the line that created the selected handle in the Java editor");
        IToolBarManager tb = getViewSite().getActionBars().getToolBarManager();
        tb.add(showHolders);
        tb.add(openCreationSite);
        MenuManager menu = new MenuManager();
        menu.add(showHolders);
        menu.add(openCreationSite);
        viewer.getControl().setMenu(menu.createContextMenu(viewer.getControl()));
        getSite().registerContextMenu(menu, viewer);
        viewer.addSelectionChangedListener(e -> selectionChanged());
        viewer.addDoubleClickListener(e -> openCreationSite());
        selectionChanged();
    }

    private void createTree(Composite parent) {
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
    }

    @Override
    protected void show(JobView job) {
        rebuild(job, false);
    }

    private void rebuild(JobView job, boolean expandKinds) {
        boolean first = input.tree.job().ranks().isEmpty();
        input.tree = new HandleTree(job, filter);
        viewer.refresh();
        if (expandKinds) expandKinds(); // a filtered tree is short: show its handles
        else if (first && !job.ranks().isEmpty()) viewer.expandToLevel(2); // job and its ranks
        String f = filter.describe();
        filterSummary.setText(f.isEmpty() ? "" : input.tree.shownCount() + " of " + job.handleCount() + " handles: " + f);
        selectionChanged();
    }

    private void expandKinds() {
        HandleTree t = input.tree;
        if (t.childCount(t) == 0) return;
        expand(t.root());
        for (HandleTree.RankNode r : t.ranks()) {
            expand(r);
            for (HandleTree.KindNode k : t.kinds(r)) expand(k);
        }
    }

    /**
     * Expands a node on screen without creating its rows: {@code setExpandedState} of a lazy
     * viewer fills every child (minutes for 100k requests); the widget asks only for what it paints.
     */
    public void expand(Object node) {
        if (!(viewer.testFindItem(node) instanceof TreeItem item)) {
            viewer.setExpandedState(node, true); // not on screen yet: the viewer creates the path
            return;
        }
        item.setItemCount(input.tree.childCount(node));
        item.setExpanded(true);
    }

    private Optional<HandleRow> selectedRow() {
        IStructuredSelection s = viewer.getStructuredSelection();
        return s.size() == 1 && s.getFirstElement() instanceof HandleRow r ? Optional.of(r) : Optional.empty();
    }

    private void selectionChanged() {
        Optional<HandleRow> row = selectedRow();
        // the row may be from an older snapshot: show the handle the tree has now
        Optional<HandleRow> current = row.map(r -> Optional.ofNullable(input.tree.row(r.parent().owner(), r.handle().id())).orElse(r));
        TypeMap map = current.filter(r -> r.handle().kind() == HandleKind.DATATYPE && !r.handle().predefined())
                .flatMap(r -> Optional.ofNullable(input.tree.process(r.parent().owner())).map(p -> TypeMap.of(r.handle(), p)))
                .orElse(null);
        showDetails(current.map(r -> HandleDetails.of(r.handle(), map))
                .orElse(List.of(new HandleDetails.Field("Details", "select a handle to see all of its fields"))));
        showTypeMap(TypeMapStrip.of(map));
        showHolders.setEnabled(current.map(r -> r.handle().heldBy().length > 0).orElse(false));
        openCreationSite.setEnabled(current.flatMap(r -> CreationSite.of(r.handle())).isPresent());
    }

    /** Selects the handles in the {@code heldBy} of the selected handle (an orphan's holders). */
    public void showHolders() {
        Optional<HandleRow> row = selectedRow();
        if (row.isEmpty()) return;
        HandleRow current = Optional.ofNullable(input.tree.row(row.get().parent().owner(), row.get().handle().id())).orElse(row.get());
        List<HandleRow> holders = input.tree.holders(current);
        int hidden = current.handle().heldBy().length - holders.size();
        if (holders.isEmpty()) {
            report(hidden == 0 ? HandleColumn.displayName(current.handle()) + " has no holders"
                    : "The holders of " + HandleColumn.displayName(current.handle()) + " are hidden by the filter: clear it to see them");
            return;
        }
        TreePath[] paths = holders.stream().map(h -> new TreePath(input.tree.path(h).toArray())).toArray(TreePath[]::new);
        for (HandleRow h : holders) {
            expand(h.parent().owner());
            expand(h.parent());
        }
        viewer.setSelection(new TreeSelection(paths), true);
        report(holders.size() + (holders.size() == 1 ? " handle holds " : " handles hold ") + HandleColumn.displayName(current.handle())
                + (hidden > 0 ? "; " + hidden + " more hidden by the filter" : ""));
    }

    /** Opens the source line of the selected handle's creation site in the Java editor. */
    public void openCreationSite() {
        Optional<CreationSite> site = selectedRow().flatMap(r -> CreationSite.of(r.handle()));
        if (site.isEmpty()) {
            selectedRow().ifPresent(r -> report("No creation site recorded for " + HandleColumn.displayName(r.handle())));
            return;
        }
        report("Searching for " + site.get().type() + "\u2026");
        CreationSiteOpener.open(viewer.getControl().getDisplay(), site.get(), this::report);
    }

    /** One line in the status line; null clears it. */
    private void report(String message) {
        status = message;
        if (viewer.getControl().isDisposed()) return;
        getViewSite().getActionBars().getStatusLineManager().setMessage(message);
    }

    /** The last status-line message of this view (tests read it). */
    public String statusMessage() {
        return status;
    }

    /** The details pane as {@code label: value} lines in field order, read from the table (tests use it). */
    public String detailsText() {
        StringBuilder left = new StringBuilder();
        StringBuilder right = new StringBuilder();
        for (TableItem i : details.getItems()) {
            left.append(i.getText(0)).append(": ").append(i.getText(1)).append('\n');
            if (!i.getText(2).isEmpty()) right.append(i.getText(2)).append(": ").append(i.getText(3)).append('\n');
        }
        return left.append(right).toString();
    }

    public HandleFilter filter() {
        return filter;
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
