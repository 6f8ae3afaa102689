package io.mpilens.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A plain-text result table: the first {@code textColumns} columns left-aligned, the numbers right-aligned. */
final class ResultTable {
    private final int textColumns;
    private final List<String[]> rows = new ArrayList<>();

    ResultTable(int textColumns, String... header) {
        this.textColumns = textColumns;
        rows.add(header);
    }

    void row(Object... cells) {
        String[] r = new String[rows.get(0).length];
        for (int i = 0; i < r.length; i++) r[i] = i < cells.length && cells[i] != null ? cells[i].toString() : "";
        rows.add(r);
    }

    String render() {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                if (i > 0) line.append("  ");
                String pad = " ".repeat(width[i] - r[i].length());
                line.append(i < textColumns ? r[i] + pad : pad + r[i]);
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }

    static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 1000 ? "%,.0f" : "%.1f", v);
    }

    static String rate(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String ratio(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static String speedUp(double v) {
        return String.format(Locale.ROOT, v >= 10 ? "%.0fx" : "%.1fx", v);
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
