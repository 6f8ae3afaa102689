package io.mpilens.plugin.views;

import io.mpilens.headless.text.WaitForPicture;
import io.mpilens.plugin.model.Rgb;
import java.util.List;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.ScrolledComposite;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.graphics.FontData;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.widgets.Canvas;
import org.eclipse.swt.widgets.Composite;

/**
 * Paints a {@link WaitForPicture} with SWT: the same boxes, arrows, legend and lines as
 * {@code calls --svg}, at the layout's coordinates (one layout, two painters); a tooltip names
 * the rank or the wait under the mouse. Without a picture it shows a message instead.
 */
final class WaitForCanvas {
    private final ScrolledComposite scroll;
    private final Canvas canvas;
    private final Font font;
    private final Font bold;
    private WaitForPicture picture;
    private String message = "";

    WaitForCanvas(Composite parent) {
        scroll = new ScrolledComposite(parent, SWT.V_SCROLL | SWT.H_SCROLL | SWT.BORDER);
        canvas = new Canvas(scroll, SWT.DOUBLE_BUFFERED);
        canvas.setBackground(parent.getDisplay().getSystemColor(SWT.COLOR_WHITE));
        scroll.setContent(canvas);
        scroll.setExpandHorizontal(true);
        scroll.setExpandVertical(true);
        // the layout measures text in a 12 px monospace font: the text font, at that size
        FontData fd = JFaceResources.getTextFont().getFontData()[0];
        font = new Font(parent.getDisplay(), fd.getName(), 9, SWT.NORMAL);
        bold = new Font(parent.getDisplay(), fd.getName(), 9, SWT.BOLD);
        canvas.addDisposeListener(e -> {
            font.dispose();
            bold.dispose();
        });
        canvas.addPaintListener(e -> paint(e.gc));
        canvas.addListener(SWT.MouseMove, e -> {
            String tip = tooltipAt(e.x, e.y);
            if (!java.util.Objects.equals(tip, canvas.getToolTipText())) canvas.setToolTipText(tip);
        });
    }

    ScrolledComposite control() {
        return scroll;
    }

    Canvas canvas() {
        return canvas;
    }

    /** Shows {@code p}; null shows {@code message} instead. */
    void show(WaitForPicture p, String message) {
        this.picture = p;
        this.message = message == null ? "" : message;
        Point size = p == null ? new Point(300, 60) : new Point((int) Math.ceil(p.width()), (int) Math.ceil(p.height()));
        scroll.setMinSize(size);
        canvas.redraw();
    }

    WaitForPicture picture() {
        return picture;
    }

    private String tooltipAt(int x, int y) {
        if (picture == null) return null;
        for (WaitForPicture.Box b : picture.boxes()) if (b.contains(x, y)) return b.tooltip();
        for (WaitForPicture.Arrow a : picture.arrows()) {
            List<WaitForPicture.Point> pts = a.path();
            for (int i = 1; i < pts.size(); i++) if (distance(pts.get(i - 1), pts.get(i), x, y) < 5) return a.tooltip();
        }
        return null;
    }

    private static double distance(WaitForPicture.Point a, WaitForPicture.Point b, double x, double y) {
        double dx = b.x() - a.x(), dy = b.y() - a.y(), len = dx * dx + dy * dy;
        double t = len == 0 ? 0 : Math.max(0, Math.min(1, ((x - a.x()) * dx + (y - a.y()) * dy) / len));
        return Math.hypot(x - a.x() - t * dx, y - a.y() - t * dy);
    }

    private void paint(GC gc) {
        gc.setAntialias(SWT.ON);
        gc.setTextAntialias(SWT.ON);
        gc.setFont(font);
        Color black = canvas.getDisplay().getSystemColor(SWT.COLOR_BLACK);
        if (picture == null) {
            gc.setForeground(black);
            gc.drawText(message, 8, 8, true);
            return;
        }
        int ascent = gc.getFontMetrics().getAscent();
        for (WaitForPicture.Arrow a : picture.arrows()) {
            Color c = colour(a.colour());
            gc.setForeground(c);
            gc.setBackground(c);
            gc.setLineWidth((int) Math.round(a.strokeWidth()));
            if (a.dashed()) {
                gc.setLineDash(new int[] {6, 4});
            } else {
                gc.setLineStyle(SWT.LINE_SOLID);
            }
            gc.drawPolyline(ints(a.path()));
            gc.setLineStyle(SWT.LINE_SOLID);
            gc.fillPolygon(ints(a.head()));
            if (!a.labelShown()) continue;
            // the label over the canvas's ground, as the SVG's halo
            Point extent = gc.textExtent(a.label());
            int x = (int) Math.round(a.labelLeft(extent.x));
            gc.setBackground(canvas.getBackground());
            gc.drawText(a.label(), x, (int) Math.round(a.labelAt().y()) - ascent, false);
        }
        for (WaitForPicture.Box b : picture.boxes()) {
            int x = (int) Math.round(b.x()), y = (int) Math.round(b.y()), w = (int) Math.round(b.w()), h = (int) Math.round(b.h());
            gc.setBackground(colour(b.fill()));
            gc.fillRoundRectangle(x, y, w, h, 10, 10);
            gc.setForeground(colour(b.stroke()));
            gc.setLineWidth((int) Math.round(b.strokeWidth()));
            if (b.dashed()) gc.setLineDash(new int[] {6, 4});
            else gc.setLineStyle(SWT.LINE_SOLID);
            gc.drawRoundRectangle(x, y, w, h, 10, 10);
            gc.setLineStyle(SWT.LINE_SOLID);
            gc.setFont(bold);
            gc.setForeground(black);
            Point t = gc.textExtent(b.title());
            int titleY = b.detail().isEmpty() ? y + (h - t.y) / 2 : y + 3;
            gc.drawText(b.title(), x + (w - t.x) / 2, titleY, true);
            gc.setFont(font);
            if (!b.detail().isEmpty()) {
                Point d = gc.textExtent(b.detail());
                gc.setForeground(colour(b.stroke()));
                gc.drawText(b.detail(), x + (w - d.x) / 2, y + h - d.y - 3, true);
            }
        }
        for (WaitForPicture.LegendEntry e : picture.legend()) {
            int x = (int) Math.round(e.x()), y = (int) Math.round(e.y());
            gc.setBackground(colour(WaitForPicture.tint(e.colour())));
            gc.fillRectangle(x, y - 11, 16, 14);
            gc.setForeground(colour(e.colour()));
            gc.setLineWidth(2);
            if (e.dashed()) gc.setLineDash(new int[] {4, 2});
            else gc.setLineStyle(SWT.LINE_SOLID);
            gc.drawRectangle(x, y - 11, 16, 14);
            gc.setLineStyle(SWT.LINE_SOLID);
            gc.setForeground(black);
            gc.drawText(e.label(), x + 22, y - ascent, true);
        }
        for (WaitForPicture.Text t : picture.texts()) {
            gc.setFont(t.bold() ? bold : font);
            gc.setForeground(colour(t.colour()));
            gc.drawText(t.text(), (int) Math.round(t.x()), (int) Math.round(t.y()) - ascent, true);
        }
        gc.setFont(font);
    }

    private static int[] ints(List<WaitForPicture.Point> points) {
        int[] out = new int[points.size() * 2];
        for (int i = 0; i < points.size(); i++) {
            out[2 * i] = (int) Math.round(points.get(i).x());
            out[2 * i + 1] = (int) Math.round(points.get(i).y());
        }
        return out;
    }

    private static Color colour(String hex) {
        return Colors.of(Rgb.hex(Integer.parseInt(hex.substring(1), 16)));
    }
}
