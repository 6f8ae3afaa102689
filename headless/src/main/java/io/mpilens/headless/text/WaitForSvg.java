package io.mpilens.headless.text;

import java.util.List;
import java.util.Locale;

/**
 * {@code calls --svg}: {@link WaitForPicture} painted as SVG. One {@code <g class="rank">} per
 * rank ({@code data-rank}, {@code data-state}, {@code data-verdict}), one {@code <g class="wait">}
 * per "waits for" arrow ({@code data-from}, {@code data-to}, {@code data-verdict},
 * {@code data-cycle}), a legend of the verdicts shown and the verdicts' lines as {@code calls}
 * prints them. Attributes carry the model's values so tools can read the picture back.
 */
public final class WaitForSvg {
    private WaitForSvg() {
    }

    public static String svg(WaitForPicture p) {
        StringBuilder b = new StringBuilder();
        int w = (int) Math.ceil(p.width()), h = (int) Math.ceil(p.height());
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w)
                .append("\" height=\"").append(h).append("\" viewBox=\"0 0 ").append(w).append(' ').append(h)
                .append("\" font-family=\"monospace\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        for (WaitForPicture.Arrow a : p.arrows()) {
            b.append("<g class=\"wait\" data-from=\"").append(a.from()).append("\" data-to=\"").append(a.to())
                    .append("\" data-verdict=\"").append(a.verdict()).append("\" data-cycle=\"").append(a.cycle()).append("\">")
                    .append("<title>").append(esc(a.tooltip())).append("</title>\n<polyline fill=\"none\" stroke=\"")
                    .append(a.colour()).append("\" stroke-width=\"").append(num(a.strokeWidth())).append('"')
                    .append(a.dashed() ? " stroke-dasharray=\"6 4\"" : "").append(" points=\"").append(points(a.path()))
                    .append("\"/>\n<polygon fill=\"").append(a.colour()).append("\" points=\"").append(points(a.head()))
                    .append("\"/>");
            if (a.labelShown()) {
                b.append("\n<text class=\"call\" x=\"").append(num(a.labelAt().x())).append("\" y=\"")
                        .append(num(a.labelAt().y())).append("\" text-anchor=\"").append(a.anchor()).append("\" fill=\"")
                        .append(a.colour()).append("\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">")
                        .append(esc(a.label())).append("</text>");
            }
            b.append("</g>\n");
        }
        for (WaitForPicture.Box x : p.boxes()) {
            double cx = x.x() + x.w() / 2;
            b.append("<g class=\"rank\" data-rank=\"").append(x.rank()).append("\" data-state=\"").append(x.state())
                    .append("\" data-verdict=\"").append(x.verdict()).append("\"><title>").append(esc(x.tooltip()))
                    .append("</title><rect x=\"").append(num(x.x())).append("\" y=\"").append(num(x.y())).append("\" width=\"")
                    .append(num(x.w())).append("\" height=\"").append(num(x.h())).append("\" rx=\"5\" fill=\"").append(x.fill())
                    .append("\" stroke=\"").append(x.stroke()).append("\" stroke-width=\"").append(num(x.strokeWidth()))
                    .append('"').append(x.dashed() ? " stroke-dasharray=\"6 4\"" : "").append("/><text class=\"name\" x=\"")
                    .append(num(cx)).append("\" y=\"").append(num(x.detail().isEmpty() ? x.y() + x.h() / 2 + 4 : x.y() + 16))
                    .append("\" text-anchor=\"middle\" font-weight=\"bold\">").append(esc(x.title())).append("</text>");
            if (!x.detail().isEmpty()) {
                b.append("<text class=\"verdict\" x=\"").append(num(cx)).append("\" y=\"").append(num(x.y() + 32))
                        .append("\" text-anchor=\"middle\" fill=\"").append(x.stroke()).append("\">").append(esc(x.detail()))
                        .append("</text>");
            }
            b.append("</g>\n");
        }
        if (!p.legend().isEmpty()) {
            b.append("<g class=\"legend\">\n");
            for (WaitForPicture.LegendEntry e : p.legend()) {
                b.append("<g class=\"legend-entry\"><rect x=\"").append(num(e.x())).append("\" y=\"").append(num(e.y() - 11))
                        .append("\" width=\"16\" height=\"14\" rx=\"2\" fill=\"").append(WaitForPicture.tint(e.colour()))
                        .append("\" stroke=\"").append(e.colour()).append("\" stroke-width=\"2\"")
                        .append(e.dashed() ? " stroke-dasharray=\"4 2\"" : "").append("/><text x=\"").append(num(e.x() + 22))
                        .append("\" y=\"").append(num(e.y())).append("\">").append(esc(e.label())).append("</text></g>\n");
            }
            b.append("</g>\n");
        }
        for (WaitForPicture.Text t : p.texts()) {
            b.append("<text class=\"line\" x=\"").append(num(t.x())).append("\" y=\"").append(num(t.y())).append("\" fill=\"")
                    .append(t.colour()).append('"').append(t.bold() ? " font-weight=\"bold\"" : "")
                    .append(" xml:space=\"preserve\">").append(esc(t.text())).append("</text>\n");
        }
        return b.append("</svg>\n").toString();
    }

    private static String points(List<WaitForPicture.Point> points) {
        StringBuilder b = new StringBuilder();
        for (WaitForPicture.Point p : points) {
            if (b.length() > 0) b.append(' ');
            b.append(num(p.x())).append(',').append(num(p.y()));
        }
        return b.toString();
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        return FaultSvg.esc(s);
    }
}
