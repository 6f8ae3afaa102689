package io.mpilens.plugin.model;

import java.util.List;

/**
 * A Cominfo/Hostinfo box: a titled outer box whose border colour is its state, holding one
 * inner cell per process. The views only draw these.
 */
public record Box(String title, String subtitle, String state, Rgb border, List<Cell> cells, String tooltip) {
    public Box {
        cells = List.copyOf(cells);
    }

    /** One process inside a box, filled with the colour of its state. */
    public record Cell(String label, String detail, Rgb fill, String tooltip) {
    }

    /** A legend entry: what a colour means. */
    public record LegendEntry(String label, Rgb colour, boolean border) {
    }
}
