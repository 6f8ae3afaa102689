package io.mpilens.plugin.views;

import io.mpilens.plugin.model.Box;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.ScrolledComposite;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.graphics.FontData;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Canvas;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;

/**
 * Draws a legend and Cominfo/Hostinfo {@link Box}es, flowing left to right and wrapping at the
 * view's width; scrolls vertically; a tooltip names the box or process under the mouse.
 */
final class BoxCanvas {
    private static final int PAD = 8, GAP = 12, CELL_W = 84, CELL_H = 40, CELL_GAP = 6, MAX_CELLS_PER_ROW = 8;

    private final ScrolledComposite scroll;
    private final Canvas canvas;
    private final Font bold;
    private List<Box.LegendEntry> legend = List.of();
    private List<Box> boxes = List.of();
    private String emptyText = "";
    private final List<Hit> hits = new ArrayList<>();

    private record Hit(Rectangle area, String tooltip) {
    }

    BoxCanvas(Composite parent) {
        scroll = new ScrolledComposite(parent, SWT.V_SCROLL | SWT.H_SCROLL);
        canvas = new Canvas(scroll, SWT.DOUBLE_BUFFERED);
        canvas.setBackground(parent.getDisplay().getSystemColor(SWT.COLOR_LIST_BACKGROUND));
        scroll.setContent(canvas);
        scroll.setExpandHorizontal(true);
        scroll.setExpandVertical(true);
        FontData fd = parent.getFont().getFontData()[0];
        bold = new Font(parent.getDisplay(), fd.getName(), fd.getHeight(), SWT.BOLD);
        canvas.addDisposeListener(e -> bold.dispose());
        canvas.addPaintListener(e -> paint(e.gc, false));
        scroll.addListener(SWT.Resize, e -> relayout());
        canvas.addListener(SWT.MouseMove, e -> {
            String tip = null;
            for (int i = hits.size() - 1; i >= 0; i--) { // cells are added after their box: innermost first
                if (hits.get(i).area.contains(e.x, e.y)) {
                    tip = hits.get(i).tooltip;
                    break;
                }
            }
            if (!java.util.Objects.equals(tip, canvas.getToolTipText())) canvas.setToolTipText(tip);
        });
    }

    ScrolledComposite control() {
        return scroll;
    }

    Canvas canvas() {
        return canvas;
    }

    void show(List<Box.LegendEntry> legend, List<Box> boxes, String emptyText) {
        this.legend = legend;
        this.boxes = boxes;
        this.emptyText = emptyText;
        relayout();
        canvas.redraw();
    }

    private void relayout() {
        GC gc = new GC(canvas);
        try {
            int h = paint(gc, true);
            scroll.setMinSize(new Point(Math.max(300, widest(gc)), h));
        } finally {
            gc.dispose();
        }
    }

    private int widest(GC gc) {
        int w = 0;
        for (Box b : boxes) w = Math.max(w, boxSize(gc, b).x + 2 * PAD);
        return w;
    }

    /** Paints (or only measures); returns the height used. */
    private int paint(GC gc, boolean measureOnly) {
        Display d = canvas.getDisplay();
        if (!measureOnly) hits.clear();
        int width = Math.max(scroll.getClientArea().width, 300);
        int x = PAD, y = PAD;
        gc.setFont(canvas.getFont());
        int lineH = gc.getFontMetrics().getHeight();
        // legend
        for (Box.LegendEntry e : legend) {
            int tw = gc.textExtent(e.label()).x;
            if (x + 18 + tw > width - PAD && x > PAD) {
                x = PAD;
                y += lineH + 4;
            }
            if (!measureOnly) {
                if (e.border()) {
                    gc.setForeground(Colors.of(e.colour()));
                    gc.setLineWidth(3);
                    gc.drawRectangle(x + 1, y + 2, lineH - 4, lineH - 4);
                    gc.setLineWidth(1);
                } else {
                    gc.setBackground(Colors.of(e.colour()));
                    gc.fillRectangle(x, y + 1, lineH - 2, lineH - 2);
                    gc.setForeground(d.getSystemColor(SWT.COLOR_DARK_GRAY));
                    gc.drawRectangle(x, y + 1, lineH - 2, lineH - 2);
                }
                gc.setForeground(d.getSystemColor(SWT.COLOR_LIST_FOREGROUND));
                gc.drawText(e.label(), x + lineH + 2, y, true);
            }
            x += lineH + 2 + tw + 14;
        }
        y += lineH + GAP;
        x = PAD;
        if (boxes.isEmpty()) {
            if (!measureOnly) {
                gc.setForeground(d.getSystemColor(SWT.COLOR_DARK_GRAY));
                gc.drawText(emptyText, x, y, true);
            }
            return y + lineH + PAD;
        }
        int rowH = 0;
        for (Box b : boxes) {
            Point size = boxSize(gc, b);
            if (x + size.x > width - PAD && x > PAD) {
                x = PAD;
                y += rowH + GAP;
                rowH = 0;
            }
            if (!measureOnly) drawBox(gc, b, x, y, size, lineH);
            x += size.x + GAP;
            rowH = Math.max(rowH, size.y);
        }
        return y + rowH + PAD;
    }

    private Point boxSize(GC gc, Box b) {
        int perRow = Math.min(MAX_CELLS_PER_ROW, Math.max(1, b.cells().size()));
        int rows = (b.cells().size() + perRow - 1) / perRow;
        gc.setFont(bold);
        int titleW = gc.textExtent(b.title() + "  " + b.state()).x;
        gc.setFont(canvas.getFont());
        int subW = gc.textExtent(b.subtitle()).x;
        int lineH = gc.getFontMetrics().getHeight();
        int cellsW = perRow * cellWidth(gc, b) + (perRow - 1) * CELL_GAP;
        int w = Math.max(Math.max(titleW, subW), cellsW) + 2 * PAD;
        int h = PAD + 2 * lineH + 6 + rows * CELL_H + (rows - 1) * CELL_GAP + PAD;
        return new Point(w, h);
    }

    private void drawBox(GC gc, Box b, int x, int y, Point size, int lineH) {
        Display d = canvas.getDisplay();
        gc.setBackground(d.getSystemColor(SWT.COLOR_LIST_BACKGROUND));
        gc.fillRoundRectangle(x, y, size.x, size.y, 10, 10);
        gc.setForeground(Colors.of(b.border()));
        gc.setLineWidth(3);
        gc.drawRoundRectangle(x + 1, y + 1, size.x - 3, size.y - 3, 10, 10);
        gc.setLineWidth(1);
        hits.add(new Hit(new Rectangle(x, y, size.x, size.y), b.tooltip()));

        gc.setFont(bold);
        gc.setForeground(d.getSystemColor(SWT.COLOR_LIST_FOREGROUND));
        gc.drawText(b.title(), x + PAD, y + PAD, true);
        int tw = gc.textExtent(b.title() + "  ").x;
        gc.setForeground(Colors.of(b.border()));
        gc.drawText(b.state(), x + PAD + tw, y + PAD, true);
        gc.setFont(canvas.getFont());
        gc.setForeground(d.getSystemColor(SWT.COLOR_DARK_GRAY));
        gc.drawText(b.subtitle(), x + PAD, y + PAD + lineH, true);

        int perRow = Math.min(MAX_CELLS_PER_ROW, Math.max(1, b.cells().size()));
        int cellW = cellWidth(gc, b);
        int cy = y + PAD + 2 * lineH + 6;
        for (int i = 0; i < b.cells().size(); i++) {
            Box.Cell c = b.cells().get(i);
            int cx = x + PAD + (i % perRow) * (cellW + CELL_GAP);
            int yy = cy + (i / perRow) * (CELL_H + CELL_GAP);
            gc.setBackground(Colors.of(c.fill()));
            gc.fillRectangle(cx, yy, cellW, CELL_H);
            gc.setForeground(d.getSystemColor(SWT.COLOR_DARK_GRAY));
            gc.drawRectangle(cx, yy, cellW, CELL_H);
            gc.setForeground(d.getSystemColor(SWT.COLOR_BLACK));
            gc.setFont(bold);
            centred(gc, c.label(), cx, cellW, yy + 3);
            gc.setFont(canvas.getFont());
            centred(gc, c.detail(), cx, cellW, yy + 3 + lineH);
            hits.add(new Hit(new Rectangle(cx, yy, cellW, CELL_H), c.tooltip()));
        }
    }

    /** The box's cells are all as wide as its widest text needs ({@code 2 ← pid 4711, epoch 1}), at least CELL_W. */
    private int cellWidth(GC gc, Box b) {
        Font before = gc.getFont();
        int w = CELL_W;
        for (Box.Cell c : b.cells()) {
            gc.setFont(bold);
            w = Math.max(w, gc.textExtent(c.label()).x + 8);
            gc.setFont(canvas.getFont());
            w = Math.max(w, gc.textExtent(c.detail()).x + 8);
        }
        gc.setFont(before);
        return w;
    }

    private static void centred(GC gc, String s, int cellX, int cellW, int y) {
        int w = gc.textExtent(s).x;
        gc.drawText(s, cellX + Math.max(2, (cellW - w) / 2), y, true);
    }
}
