package io.mpilens.plugin.views;

import io.mpilens.plugin.model.TypeMapStrip;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Canvas;
import org.eclipse.swt.widgets.Composite;

/**
 * Draws a datatype's {@link TypeMapStrip} below the details pane: one bar over the type's span,
 * data runs in blue, holes in amber and hatched, each labelled where it fits, the span's ends
 * and the caption above. Empty (and hidden by the view) when no datatype map is selected.
 */
final class TypeMapCanvas {
    static final int HEIGHT = 64;
    private static final int MARGIN = 8;
    private final Canvas canvas;
    private TypeMapStrip strip;

    TypeMapCanvas(Composite parent) {
        canvas = new Canvas(parent, SWT.DOUBLE_BUFFERED);
        canvas.setBackground(parent.getDisplay().getSystemColor(SWT.COLOR_LIST_BACKGROUND));
        canvas.addPaintListener(e -> paint(e.gc));
    }

    Canvas control() {
        return canvas;
    }

    TypeMapStrip strip() {
        return strip;
    }

    void show(TypeMapStrip s) {
        strip = s;
        canvas.redraw();
    }

    private void paint(GC gc) {
        if (strip == null) return;
        Rectangle area = canvas.getClientArea();
        int textHeight = gc.getFontMetrics().getHeight();
        gc.setForeground(canvas.getDisplay().getSystemColor(SWT.COLOR_LIST_FOREGROUND));
        gc.drawText(strip.caption(), MARGIN, 2, true);
        int top = textHeight + 6;
        int barHeight = Math.max(12, area.height - top - textHeight - 6);
        int width = Math.max(1, area.width - 2 * MARGIN);
        long span = Math.max(1, strip.to() - strip.from());
        for (TypeMapStrip.Segment s : strip.segments()) {
            int x0 = MARGIN + (int) ((s.from() - strip.from()) * width / span);
            int x1 = MARGIN + (int) ((s.to() - strip.from()) * width / span);
            int w = Math.max(1, x1 - x0);
            gc.setBackground(Colors.of(s.data() ? TypeMapStrip.DATA : TypeMapStrip.HOLE));
            gc.fillRectangle(x0, top, w, barHeight);
            gc.setForeground(canvas.getDisplay().getSystemColor(SWT.COLOR_DARK_GRAY));
            if (!s.data()) {
                for (int x = x0 - barHeight; x < x0 + w; x += 6) { // hatching, clipped to the hole
                    gc.setClipping(x0, top, w, barHeight);
                    gc.drawLine(x, top + barHeight, x + barHeight, top);
                }
                gc.setClipping((Rectangle) null);
            }
            gc.drawRectangle(x0, top, w, barHeight);
            Point size = gc.textExtent(s.label());
            if (size.x + 4 <= w) {
                gc.setForeground(canvas.getDisplay().getSystemColor(s.data() ? SWT.COLOR_WHITE : SWT.COLOR_BLACK));
                gc.drawText(s.label(), x0 + (w - size.x) / 2, top + (barHeight - size.y) / 2, true);
            }
        }
        gc.setForeground(canvas.getDisplay().getSystemColor(SWT.COLOR_LIST_FOREGROUND));
        String left = Long.toString(strip.from()), right = Long.toString(strip.to());
        gc.drawText(left, MARGIN, top + barHeight + 2, true);
        gc.drawText(right, MARGIN + width - gc.textExtent(right).x, top + barHeight + 2, true);
    }
}
