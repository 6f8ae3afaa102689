package io.mpilens.plugin.model;

import io.mpilens.api.model.TypeMap;
import java.util.ArrayList;
import java.util.List;

/**
 * A datatype's map as the details pane draws it: a strip over the type's extent, data runs and
 * holes side by side in displacement order, each with its label. Pure model: the view scales it.
 */
public final class TypeMapStrip {
    /** Data blue, holes amber: holes are what the user looks for. */
    public static final Rgb DATA = Rgb.hex(0x4a7fc1);
    public static final Rgb HOLE = Rgb.hex(0xf2c14e);

    /** [from, to) in the map's unit; {@code data} false for a hole. */
    public record Segment(long from, long to, boolean data, String label) {
        @Override
        public String toString() {
            return "[" + from + "," + to + ") " + label;
        }
    }

    private final TypeMap map;
    private final List<Segment> segments = new ArrayList<>();
    private final long from;
    private final long to;

    private TypeMapStrip(TypeMap map) {
        this.map = map;
        long lo = map.lowerBound(), hi = map.lowerBound() + map.extent();
        for (TypeMap.Span sp : map.spans()) {
            if (sp.isHole()) {
                TypeMap.Hole h = sp.hole();
                segments.add(new Segment(h.displacement(), h.end(), false, "hole " + h.length()));
                continue;
            }
            TypeMap.Run r = sp.run();
            segments.add(new Segment(r.displacement(), r.end(), true, r.type() + (r.count() > 1 ? " x" + r.count() : "")));
            lo = Math.min(lo, r.displacement());
            hi = Math.max(hi, r.end());
        }
        from = lo;
        to = hi;
    }

    /** The strip of a known map; null for an unknown one (the pane says why in text instead). */
    public static TypeMapStrip of(TypeMap map) {
        return map == null || !map.known() ? null : new TypeMapStrip(map);
    }

    public List<Segment> segments() {
        return segments;
    }

    /** The span drawn: the extent, widened to data that lies outside it (explicit bounds). */
    public long from() {
        return from;
    }

    public long to() {
        return to;
    }

    /** The caption above the strip. */
    public String caption() {
        String unit = map.unit().label() + "s";
        return "Type map: " + map.size() + " of " + map.extent() + " " + unit + " carry data"
                + (map.cut() ? " (first " + map.runs().size() + " runs drawn)" : ", " + map.holeTotal() + " are holes")
                + (map.lowerBound() != 0 ? "; lower bound " + map.lowerBound() : "");
    }

    /** The segments as one line (tests compare it). */
    public String describe() {
        StringBuilder s = new StringBuilder();
        for (Segment g : segments) s.append(s.length() == 0 ? "" : " | ").append(g);
        return s.toString();
    }
}
