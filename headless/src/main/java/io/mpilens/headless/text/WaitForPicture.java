package io.mpilens.headless.text;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.WaitFor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The wait-for picture of {@code calls}: every rank a box, each stuck rank's "waits for" an arrow
 * labelled with its call, boxes and arrows coloured by {@link WaitFor#verdict} (the cycle drawn
 * thick, the ranks stuck behind it dashed), and above them the verdicts as {@code calls} prints
 * them, with a legend. One layout, two painters: {@link WaitForSvg} ({@code calls --svg}) and the Eclipse MPI Calls
 * view draw exactly these boxes, polylines, arrow heads and texts, in these colours.
 *
 * <p>Ranks sit on a circle (rank 0 on top, clockwise) up to {@value #CIRCLE_MAX} ranks, in rows
 * beyond; arrows bend to their left, so the two arrows of ranks waiting for each other do not
 * overlap. Coordinates are pixels for a 12 px monospace font ({@link #CHAR} wide).
 *
 * <p>Why this file is long: it is the one layout both painters share (boxes on a circle or in rows,
 * bent arrows, labels, verdict lines, legend); split, the painters would each need all the parts.
 */
public final class WaitForPicture {
    /** Width of a character of the 12 px monospace font, for sizes and bounds. */
    public static final double CHAR = 7.3;
    public static final double LINE = 16;
    static final int CIRCLE_MAX = 16;
    /** How many arrows at most carry the same label (a collective that many ranks are in). */
    static final int SAME_LABEL_SHOWN = 4;
    private static final double BOX_W = 136, BOX_H = 40, MARGIN = 12, HEAD = 10;

    public record Point(double x, double y) {
    }

    /**
     * A rank's box, {@code (x, y)} its top left corner.
     *
     * @param detail  its verdict in a word ({@code DEADLOCK}, {@code stuck behind}), or its state when not OK
     * @param stroke  frame colour ({@code #rrggbb}); {@code fill} inside
     */
    public record Box(int rank, double x, double y, double w, double h, String title, String detail, String stroke,
                      String fill, double strokeWidth, boolean dashed, WaitFor.Verdict verdict, ProcessState state,
                      String tooltip) {
        public boolean contains(double px, double py) {
            return px >= x && px <= x + w && py >= y && py <= y + h;
        }
    }

    /**
     * A "waits for" arrow from rank {@code from} to {@code to}: a polyline, a filled head (3
     * points) at {@code to}'s end, its label beside the curve at {@code labelAt} (the text's
     * baseline), which is where the text starts, is centred, or ends ({@code anchor} {@code start},
     * {@code middle}, {@code end}, as SVG's {@code text-anchor}).
     *
     * @param labelShown whether the label is drawn: a rank's call is written on one of its arrows,
     *                   and a call many ranks are in on a few ({@link #SAME_LABEL_SHOWN}); the tooltip has it always
     * @param cycle      on the cycle the verdict names (drawn thick)
     */
    public record Arrow(int from, int to, List<Point> path, List<Point> head, String label, boolean labelShown,
                        Point labelAt, String anchor, String colour, double strokeWidth, boolean dashed, boolean cycle,
                        WaitFor.Verdict verdict, String tooltip) {
        /** Left edge of the label for a text {@code textWidth} wide. */
        public double labelLeft(double textWidth) {
            return anchor.equals("start") ? labelAt.x() : anchor.equals("end") ? labelAt.x() - textWidth
                    : labelAt.x() - textWidth / 2;
        }
    }

    /** A line of text at {@code (x, y)} (its baseline), left-aligned. */
    public record Text(String text, double x, double y, String colour, boolean bold) {
    }

    /** A legend entry: a swatch of {@code colour} (dashed: a rank stuck behind) and its label. */
    public record LegendEntry(String label, String colour, boolean dashed, double x, double y) {
    }

    private final double width, height;
    private final List<Box> boxes;
    private final List<Arrow> arrows;
    private final List<Text> texts;
    private final List<LegendEntry> legend;

    private WaitForPicture(double width, double height, List<Box> boxes, List<Arrow> arrows, List<Text> texts,
                           List<LegendEntry> legend) {
        this.width = width;
        this.height = height;
        this.boxes = List.copyOf(boxes);
        this.arrows = List.copyOf(arrows);
        this.texts = List.copyOf(texts);
        this.legend = List.copyOf(legend);
    }

    public double width() {
        return width;
    }

    public double height() {
        return height;
    }

    public List<Box> boxes() {
        return boxes;
    }

    public List<Arrow> arrows() {
        return arrows;
    }

    /** The title and the verdicts' lines under the ranks. */
    public List<Text> texts() {
        return texts;
    }

    public List<LegendEntry> legend() {
        return legend;
    }

    /** Colour of a verdict: the cycle's and the ranks' behind it alike (those dashed). */
    public static String colour(WaitFor.Verdict v) {
        switch (v) {
            case DEADLOCK:
            case BEHIND_DEADLOCK: return "#c62828";
            case POSSIBLE:
            case BEHIND_POSSIBLE: return "#f9a825";
            case PROGRESS: return "#2e7d32";
            case UNCONFIRMED: return "#757575";
            case NEVER_COMPLETES: return "#ad1457";
            case BEHIND_FINALIZED: return "#8d6e63";
            default: return "#9e9e9e";
        }
    }

    /** What the legend says of a verdict. */
    public static String label(WaitFor.Verdict v) {
        switch (v) {
            case DEADLOCK: return "DEADLOCK: nothing moved between two looks";
            case BEHIND_DEADLOCK: return "stuck behind the deadlock";
            case POSSIBLE: return "possible deadlock (one look)";
            case BEHIND_POSSIBLE: return "stuck behind it (one look)";
            case PROGRESS: return "not deadlocked: progress in between";
            case UNCONFIRMED: return "cannot confirm: an agent does not count";
            case NEVER_COMPLETES: return "never completes: waits for a FAILED rank";
            case BEHIND_FINALIZED: return "waits for a FINALIZED rank";
            default: return "can progress";
        }
    }

    /** The verdict in a word, inside a rank's box. */
    static String word(WaitFor.Verdict v) {
        switch (v) {
            case DEADLOCK: return "DEADLOCK";
            case BEHIND_DEADLOCK:
            case BEHIND_POSSIBLE: return "stuck behind";
            case POSSIBLE: return "possible deadlock";
            case PROGRESS: return "progress";
            case UNCONFIRMED: return "not confirmed";
            case NEVER_COMPLETES: return "never completes";
            case BEHIND_FINALIZED: return "waits: FINALIZED";
            default: return "";
        }
    }

    /**
     * Lays out the picture of one look (or of the second of two).
     *
     * @param oneLookHint what follows a possible deadlock seen at one look (as in {@link FaultBoxes#waitFor})
     */
    public static WaitForPicture of(JobModel m, List<InFlightCall> calls, WaitFor.Analysis a, WaitFor.Looks looks,
                                    String oneLookHint) {
        Set<Integer> ranks = new TreeSet<>();
        for (RankStatus r : m.processes()) if (r.rank() >= 0) ranks.add(r.rank());
        for (InFlightCall c : calls) if (c.rank() >= 0) ranks.add(c.rank());
        for (WaitFor.Wait w : a.waits()) ranks.addAll(w.on());

        // the ranks on a centre of radius r (or in rows), the picture shifted into view at the end
        List<Integer> order = new ArrayList<>(ranks);
        Map<Integer, Point> centres = new LinkedHashMap<>();
        int n = order.size();
        // room for the labels between the boxes: the circle grows with the longest call written
        double longest = 0;
        for (WaitFor.Wait w : a.waits()) longest = Math.max(longest, FaultBoxes.callText(w.call()).length() * CHAR);
        if (n <= CIRCLE_MAX) {
            double r = n <= 1 ? 0 : Math.max(Math.max(150, 0.8 * longest), n * (BOX_W + 24) / (2 * Math.PI));
            for (int i = 0; i < n; i++) {
                double angle = -Math.PI / 2 + 2 * Math.PI * i / n;
                centres.put(order.get(i), new Point(r * Math.cos(angle), r * Math.sin(angle)));
            }
        } else {
            int columns = (int) Math.ceil(Math.sqrt(n));
            for (int i = 0; i < n; i++) {
                centres.put(order.get(i), new Point((i % columns) * (BOX_W + 60), (i / columns) * (BOX_H + 70)));
            }
        }

        Map<Integer, List<InFlightCall>> callsOf = new TreeMap<>();
        for (InFlightCall c : calls) callsOf.computeIfAbsent(c.rank(), k -> new ArrayList<>()).add(c);
        Set<Integer> core = new TreeSet<>(looks.count() < 2 ? a.onCycles() : looks.confirmed());
        List<Box> boxes = new ArrayList<>();
        Map<Integer, Box> boxOf = new TreeMap<>();
        for (int rank : order) {
            Point c = centres.get(rank);
            WaitFor.Verdict v = WaitFor.verdict(rank, a, looks);
            ProcessState state = m.rank(rank).map(RankStatus::state).orElse(ProcessState.UNAVAILABLE);
            boolean stuck = v != WaitFor.Verdict.NONE;
            String stroke = stuck || state == ProcessState.OK ? colour(v) : FaultSvg.colour(state);
            String detail = state != ProcessState.OK ? state.name() + (stuck ? ", " + word(v) : "") : word(v);
            StringBuilder tip = new StringBuilder("rank " + rank + ": " + state.name());
            if (stuck) tip.append(" \u2014 ").append(label(v));
            for (InFlightCall call : callsOf.getOrDefault(rank, List.of())) {
                tip.append("\n").append(FaultBoxes.callText(call)).append("  [").append(call.thread()).append(']');
            }
            Box b = new Box(rank, c.x() - BOX_W / 2, c.y() - BOX_H / 2, BOX_W, BOX_H, "rank " + rank, detail, stroke,
                    stuck ? tint(colour(v)) : state == ProcessState.OK ? "#ffffff" : tint(FaultSvg.colour(state)),
                    core.contains(rank) ? 3 : stuck ? 2 : 1, v.behind(), v, state, tip.toString());
            boxes.add(b);
            boxOf.put(rank, b);
        }

        // one arrow per rank and rank it waits for, labelled with the calls that wait
        Map<List<Integer>, Set<String>> labels = new LinkedHashMap<>();
        Map<List<Integer>, Set<String>> threads = new LinkedHashMap<>();
        for (WaitFor.Wait w : a.waits()) {
            for (int to : w.on()) {
                List<Integer> key = List.of(w.call().rank(), to);
                labels.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(FaultBoxes.callText(w.call()));
                threads.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(w.call().thread());
            }
        }
        // a rank stuck behind a cycle: only its waits for the cycle and the ranks behind it, as calls names them
        Set<Integer> doomed = new TreeSet<>(looks.confirmed());
        doomed.addAll(looks.behind());
        List<Arrow> arrows = new ArrayList<>();
        for (Map.Entry<List<Integer>, Set<String>> e : labels.entrySet()) {
            int from = e.getKey().get(0), to = e.getKey().get(1);
            Box fb = boxOf.get(from), tb = boxOf.get(to);
            if (fb == null || tb == null) continue;
            WaitFor.Verdict v = fb.verdict();
            if (v == WaitFor.Verdict.BEHIND_DEADLOCK && !doomed.contains(to)) continue;
            if (v == WaitFor.Verdict.BEHIND_POSSIBLE && !a.deadlocked().contains(to)) continue;
            boolean cycle = core.contains(from) && core.contains(to)
                    && (v == WaitFor.Verdict.DEADLOCK || v == WaitFor.Verdict.POSSIBLE);
            String label = String.join("; ", e.getValue());
            Arrow arrow = arrow(fb, tb, label, colour(v), cycle ? 3 : 1.6, v.behind(), cycle, v,
                    "rank " + from + " waits for " + to + ": " + label + "  [" + String.join(", ", threads.get(e.getKey())) + "]");
            if (arrow != null) arrows.add(arrow);
        }

        arrows = labelled(arrows, boxes);

        // the bounds of what was placed, to shift it all into view under the title
        double minX = Double.MAX_VALUE, minY = Double.MAX_VALUE, maxX = -Double.MAX_VALUE, maxY = -Double.MAX_VALUE;
        for (Box b : boxes) {
            minX = Math.min(minX, b.x());
            minY = Math.min(minY, b.y());
            maxX = Math.max(maxX, b.x() + b.w());
            maxY = Math.max(maxY, b.y() + b.h());
        }
        for (Arrow ar : arrows) {
            for (Point p : ar.path()) {
                minX = Math.min(minX, p.x());
                minY = Math.min(minY, p.y());
                maxX = Math.max(maxX, p.x());
                maxY = Math.max(maxY, p.y());
            }
            if (!ar.labelShown()) continue;
            double textWidth = ar.label().length() * CHAR;
            minX = Math.min(minX, ar.labelLeft(textWidth));
            maxX = Math.max(maxX, ar.labelLeft(textWidth) + textWidth);
            minY = Math.min(minY, ar.labelAt().y() - LINE);
            maxY = Math.max(maxY, ar.labelAt().y() + 4);
        }
        if (boxes.isEmpty()) {
            minX = minY = 0;
            maxX = maxY = 0;
        }
        // top down: the title, the verdicts as calls prints them, the legend, then the ranks
        List<Text> texts = new ArrayList<>();
        String title = "calls  job " + m.job() + "  " + ranks.size() + " rank" + (ranks.size() == 1 ? "" : "s") + "  "
                + m.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        texts.add(new Text(title, MARGIN, MARGIN + LINE - 4, "#000000", true));
        double y = MARGIN + 2 * LINE + 6;
        double right = Math.max(maxX - minX + MARGIN, MARGIN + title.length() * CHAR);
        List<FaultBoxes.Section> sections = new FaultBoxes(false).waitForSections(a, looks, oneLookHint);
        if (sections.isEmpty()) {
            // stuck ranks but no section: each one's own call waits for a FAILED rank (calls flags it on its line)
            boolean failed = a.any();
            texts.add(new Text(failed ? RankRanges.who(a.stuck()) + " never complete: they wait for a FAILED rank"
                    : calls.isEmpty() ? "no thread of a readable rank is inside an MPI call" : "no rank is stuck at this look",
                    MARGIN, y, failed ? colour(WaitFor.Verdict.NEVER_COMPLETES) : "#424242", failed));
            y += LINE + 4;
        }
        for (FaultBoxes.Section s : sections) {
            for (int i = 0; i < s.lines().size(); i++) {
                for (String line : s.lines().get(i).split("\n")) {
                    texts.add(new Text(line, MARGIN, y, i == 0 ? colour(s.verdict()) : "#424242", i == 0));
                    right = Math.max(right, MARGIN + line.length() * CHAR);
                    y += LINE;
                }
            }
            y += 4;
        }

        List<LegendEntry> legend = new ArrayList<>();
        Set<WaitFor.Verdict> shown = new TreeSet<>();
        for (Box b : boxes) if (b.verdict() != WaitFor.Verdict.NONE) shown.add(b.verdict());
        double x = MARGIN;
        if (!shown.isEmpty()) y += 8;
        for (WaitFor.Verdict v : shown) {
            String l = label(v);
            double w = 22 + l.length() * CHAR + 18;
            if (x > MARGIN && x + w > Math.max(right, 560)) {
                x = MARGIN;
                y += LINE + 6;
            }
            legend.add(new LegendEntry(l, colour(v), v.behind(), x, y));
            x += w;
            right = Math.max(right, x);
        }
        if (!shown.isEmpty()) y += 8;

        double dx = MARGIN - minX, dy = y + 14 - minY;
        List<Box> placed = new ArrayList<>();
        for (Box b : boxes) {
            placed.add(new Box(b.rank(), b.x() + dx, b.y() + dy, b.w(), b.h(), b.title(), b.detail(), b.stroke(), b.fill(),
                    b.strokeWidth(), b.dashed(), b.verdict(), b.state(), b.tooltip()));
        }
        List<Arrow> moved = new ArrayList<>();
        for (Arrow ar : arrows) {
            moved.add(new Arrow(ar.from(), ar.to(), shift(ar.path(), dx, dy), shift(ar.head(), dx, dy), ar.label(),
                    ar.labelShown(), new Point(ar.labelAt().x() + dx, ar.labelAt().y() + dy), ar.anchor(), ar.colour(),
                    ar.strokeWidth(), ar.dashed(), ar.cycle(), ar.verdict(), ar.tooltip()));
        }
        y = maxY + dy;
        right = Math.max(right, maxX + dx);
        return new WaitForPicture(Math.ceil(right + MARGIN), Math.ceil(y + MARGIN), placed, moved, texts, legend);
    }

    private static List<Point> shift(List<Point> points, double dx, double dy) {
        List<Point> out = new ArrayList<>(points.size());
        for (Point p : points) out.add(new Point(p.x() + dx, p.y() + dy));
        return out;
    }

    /**
     * A curved arrow between two boxes (a quadratic curve bent to the left of its direction, cut
     * at the boxes' edges), or a loop above the box for a rank that waits for itself; null when the
     * boxes overlap.
     */
    private static Arrow arrow(Box from, Box to, String label, String colour, double width, boolean dashed, boolean cycle,
                               WaitFor.Verdict v, String tooltip) {
        double ax = from.x() + from.w() / 2, ay = from.y() + from.h() / 2;
        double bx = to.x() + to.w() / 2, by = to.y() + to.h() / 2;
        List<Point> curve = new ArrayList<>();
        if (from == to) {
            // a loop over the box's top edge: from its right, over the top, down into its left
            double r = 16, cx = ax, cy = from.y() - 12;
            for (int i = 0; i <= 28; i++) {
                double t = Math.toRadians(-50 + 280.0 * i / 28);
                curve.add(new Point(cx + r * Math.cos(t), cy - r * Math.sin(t)));
            }
        } else {
            double dx = bx - ax, dy = by - ay, len = Math.hypot(dx, dy);
            double nx = dy / len, ny = -dx / len; // the left of the direction, on a screen whose y grows downwards
            double bend = len * 0.16;
            double qx = (ax + bx) / 2 + nx * bend, qy = (ay + by) / 2 + ny * bend;
            int steps = Math.max(40, (int) (len / 3)); // a point every 3 px or closer: the cut at the boxes is that close
            for (int i = 0; i <= steps; i++) {
                double t = i / (double) steps, u = 1 - t;
                curve.add(new Point(u * u * ax + 2 * u * t * qx + t * t * bx, u * u * ay + 2 * u * t * qy + t * t * by));
            }
        }
        int first = 0, last = curve.size() - 1;
        while (first < curve.size() && inside(from, curve.get(first), 3)) first++;
        while (last >= 0 && inside(to, curve.get(last), 5)) last--;
        if (from == to) {
            first = 0;
            last = curve.size() - 1;
        }
        if (last - first < 2) return null;
        // at most about 40 points drawn: the curve is smooth enough, the picture stays small
        List<Point> path = new ArrayList<>();
        int every = Math.max(1, (last - first) / 40);
        for (int i = first; i < last; i += every) path.add(curve.get(i));
        path.add(curve.get(last));
        if (path.size() < 3) return null;
        Point tip = path.get(path.size() - 1), before = path.get(path.size() - 3);
        double hx = tip.x() - before.x(), hy = tip.y() - before.y(), hl = Math.hypot(hx, hy);
        hx /= hl;
        hy /= hl;
        Point base = new Point(tip.x() - hx * HEAD, tip.y() - hy * HEAD);
        List<Point> head = List.of(tip, new Point(base.x() - hy * HEAD / 2, base.y() + hx * HEAD / 2),
                new Point(base.x() + hy * HEAD / 2, base.y() - hx * HEAD / 2));
        // the line ends where the head begins, so a thick line does not blunt its tip
        path.set(path.size() - 1, base);
        return new Arrow(from.rank(), to.rank(), path, head, label, true, path.get(path.size() / 2), "middle", colour, width,
                dashed, cycle, v, tooltip);
    }

    /**
     * Which arrows carry their label, and where: beside the curve, at the place along it and on the
     * side where the text overlaps the least — no box, no label placed before, as little of another
     * arrow as can be — the middle preferred among equals.
     */
    private static List<Arrow> labelled(List<Arrow> arrows, List<Box> boxes) {
        List<double[]> taken = new ArrayList<>();
        Map<String, Integer> times = new java.util.HashMap<>();
        Set<String> perRank = new java.util.HashSet<>();
        List<Arrow> out = new ArrayList<>();
        for (Arrow a : arrows) {
            boolean shown = perRank.add(a.from() + "\n" + a.label()) && times.merge(a.label(), 1, Integer::sum) <= SAME_LABEL_SHOWN;
            Point at = a.labelAt();
            String anchor = a.anchor();
            if (shown && a.from() == a.to()) {
                // a loop over its box: the label to the right of the loop
                Box b = boxes.stream().filter(x -> x.rank() == a.from()).findFirst().orElseThrow();
                at = new Point(b.x() + b.w() / 2 + 22, b.y() - 8);
                anchor = "start";
                taken.add(new double[] {at.x(), at.y() - 11, a.label().length() * CHAR, 14});
            } else if (shown) {
                double w = a.label().length() * CHAR;
                double best = Double.MAX_VALUE;
                double[] bestRect = null;
                List<Point> p = a.path();
                int k = 0;
                search:
                for (double f : new double[] {0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8}) {
                    int i = Math.max(1, Math.min(p.size() - 2, (int) Math.round(f * (p.size() - 1))));
                    double dx = p.get(i + 1).x() - p.get(i - 1).x(), dy = p.get(i + 1).y() - p.get(i - 1).y();
                    double len = Math.max(1e-9, Math.hypot(dx, dy));
                    for (double gap : new double[] {7, 18}) {
                        for (int side : new int[] {1, -1}) {
                            double sx = side * dy / len, sy = -side * dx / len;
                            String an = sx > 0.5 ? "start" : sx < -0.5 ? "end" : "middle";
                            double x = p.get(i).x() + sx * gap;
                            double baseline = p.get(i).y() + sy * gap + (sy > 0.3 ? 11 : sy < -0.3 ? -3 : 4);
                            double left = an.equals("start") ? x : an.equals("end") ? x - w : x - w / 2;
                            double[] rect = {left, baseline - 11, w, 14};
                            double cost = overlap(rect, boxes, taken, arrows, a) + 0.01 * k++;
                            if (cost < best) {
                                best = cost;
                                bestRect = rect;
                                at = new Point(x, baseline);
                                anchor = an;
                            }
                            if (cost < 1) break search;
                        }
                    }
                }
                taken.add(bestRect);
            }
            out.add(new Arrow(a.from(), a.to(), a.path(), a.head(), a.label(), shown, at, anchor, a.colour(), a.strokeWidth(),
                    a.dashed(), a.cycle(), a.verdict(), a.tooltip()));
        }
        return out;
    }

    /**
     * How much {@code rect} (x, y, w, h) covers: a box or a label placed before weigh most, then
     * each stretch of another arrow's line under it.
     */
    private static double overlap(double[] rect, List<Box> boxes, List<double[]> taken, List<Arrow> arrows, Arrow own) {
        double cost = 0;
        for (Box b : boxes) if (meets(rect, b.x() - 3, b.y() - 3, b.w() + 6, b.h() + 6)) cost += 1000;
        for (double[] t : taken) if (meets(rect, t[0], t[1], t[2], t[3])) cost += 500;
        for (Arrow a : arrows) {
            if (a == own) continue;
            List<Point> p = a.path();
            for (int i = 1; i < p.size(); i++) {
                // a segment meets the rectangle if its middle or an end is inside (segments are a few px long)
                Point u = p.get(i - 1), v = p.get(i);
                double mx = (u.x() + v.x()) / 2, my = (u.y() + v.y()) / 2;
                if (within(rect, u.x(), u.y()) || within(rect, mx, my) || within(rect, v.x(), v.y())) cost += 10;
            }
        }
        return cost;
    }

    private static boolean meets(double[] r, double x, double y, double w, double h) {
        return r[0] < x + w && x < r[0] + r[2] && r[1] < y + h && y < r[1] + r[3];
    }

    private static boolean within(double[] r, double x, double y) {
        return x >= r[0] && x <= r[0] + r[2] && y >= r[1] && y <= r[1] + r[3];
    }

    private static boolean inside(Box b, Point p, double pad) {
        return p.x() >= b.x() - pad && p.x() <= b.x() + b.w() + pad && p.y() >= b.y() - pad && p.y() <= b.y() + b.h() + pad;
    }

    /** {@code colour} mixed with 88 % white: a box's fill. */
    public static String tint(String colour) {
        int rgb = Integer.parseInt(colour.substring(1), 16);
        int r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
        return String.format("#%02x%02x%02x", mix(r), mix(g), mix(b));
    }

    private static int mix(int c) {
        return (int) Math.round(c * 0.12 + 255 * 0.88);
    }
}
