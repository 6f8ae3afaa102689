package io.mpilens.headless.text;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cominfo --svg} and {@code hostinfo --svg}: the same boxes as {@link FaultBoxes}, as a
 * picture. One {@code <g class="communicator">} (or {@code "host"}) per box, with its state in
 * {@code data-state} and its colour on the box's frame; one {@code <g class="member">}
 * (or {@code "rank"}) per process, filled with its state's colour; a legend of every state.
 * Attributes carry the model's values so tools can read the picture back.
 */
public final class FaultSvg {
    private static final int WIDTH = 820;
    private static final int MARGIN = 10;
    private static final int CELL = 44;
    private static final int CELL_GAP = 6;
    private static final int LINE = 16;
    private static final int PER_ROW = (WIDTH - 2 * MARGIN - 20) / (CELL + CELL_GAP);

    private FaultSvg() {
    }

    /** Fill colour of a process cell. */
    public static String colour(ProcessState s) {
        switch (s) {
            case OK: return "#43a047";
            case JOINING: return "#64b5f6";
            case UNAVAILABLE: return "#fbc02d";
            case FAILED: return "#e53935";
            default: return "#9e9e9e"; // FINALIZED
        }
    }

    /** Frame colour of a communicator box. */
    public static String colour(CommState s) {
        switch (s) {
            case OK: return "#2e7d32";
            case DETECTED: return "#ef6c00";
            case RECOVERING: return "#f9a825";
            case REVOKED: return "#6a1b9a";
            case RECOVERED: return "#1565c0";
            default: return "#b71c1c"; // FAILED
        }
    }

    /** Frame colour of a host box. */
    public static String colour(HostState s) {
        switch (s) {
            case UP: return "#2e7d32";
            case PARTIAL: return "#ef6c00";
            case UNKNOWN: return "#fbc02d"; // as an UNAVAILABLE rank
            default: return "#b71c1c"; // DOWN
        }
    }

    public static String cominfo(JobModel m) {
        Map<String, String> labels = new HashMap<>();
        for (CommunicatorView c : m.communicators()) labels.put(c.key(), c.label());
        Map<Integer, ProcessState> states = new HashMap<>();
        for (RankStatus r : m.processes()) states.put(r.rank(), r.state());
        Svg svg = new Svg();
        int y = svg.title("cominfo  job " + m.job() + "  " + m.processes().size() + " ranks  " + m.at());
        for (CommunicatorView c : m.communicators()) {
            StringBuilder attrs = new StringBuilder();
            List<String> lines = new java.util.ArrayList<>();
            if (c.parent() != null) lines.add("from " + labels.getOrDefault(c.parent(), c.parent()));
            for (String r : c.recoveredBy()) lines.add("rebuilt as " + labels.getOrDefault(r, r) + " without the failed members");
            if (!c.unavailable().isEmpty()) lines.add("suspect " + c.unavailable() + " (no answer in time, not known dead)");
            if (!c.raisedOn().isEmpty()) lines.add("MPI exceptions raised on ranks " + c.raisedOn());
            if (!m.failedOn(c.key()).isEmpty()) lines.add("FAILED on ranks " + m.failedOn(c.key()) + " (transport closed)");
            List<PendingOnFailedPeer> pending = m.pendingOnFailed(c.key());
            if (!pending.isEmpty()) {
                lines.add(pending.size() + " request" + (pending.size() == 1 ? "" : "s") + " pending on a FAILED peer"
                        + " (ranks " + pending.stream().map(PendingOnFailedPeer::rank).distinct().sorted().toList() + ")");
            }
            attrs.append(" data-key=\"").append(esc(c.key())).append('"');
            if (c.parent() != null) attrs.append(" data-parent=\"").append(esc(c.parent())).append('"');
            y = svg.box("communicator", c.label(), c.state().name(), colour(c.state()), attrs.toString(), y,
                    c.members(), r -> states.getOrDefault(r, ProcessState.UNAVAILABLE), r -> Integer.toString(r), "member", lines);
        }
        if (m.communicators().isEmpty()) y = svg.text(MARGIN, y + LINE, "(no communicator known: no rank could be read yet)", "note");
        y = svg.legend(y, true);
        return svg.finish(y);
    }

    public static String hostinfo(JobModel m) {
        Svg svg = new Svg();
        int y = svg.title("hostinfo  job " + m.job() + "  " + m.hosts().size() + " host" + (m.hosts().size() == 1 ? "" : "s")
                + "  " + m.at());
        for (HostView h : m.hosts()) {
            List<String> lines = new java.util.ArrayList<>();
            for (HostView.Daemon d : h.daemons()) lines.add("daemon " + d.command() + " pid " + d.pid() + (d.alive() ? "" : "  GONE"));
            Map<Integer, RankStatus> byRank = new HashMap<>();
            for (RankStatus r : h.ranks()) byRank.put(r.rank(), r);
            y = svg.box("host", h.host(), h.state().name(), colour(h.state()), "", y,
                    h.ranks().stream().map(RankStatus::rank).toList(), r -> byRank.get(r).state(),
                    r -> (r < 0 ? "?" : Integer.toString(r)), "rank", lines);
        }
        y = svg.legend(y, false);
        return svg.finish(y);
    }

    private static final class Svg {
        private final StringBuilder body = new StringBuilder();

        int title(String s) {
            text(MARGIN, MARGIN + LINE, s, "title");
            return MARGIN + LINE + 8;
        }

        int text(int x, int y, String s, String cls) {
            body.append("<text class=\"").append(cls).append("\" x=\"").append(x).append("\" y=\"").append(y)
                    .append("\">").append(esc(s)).append("</text>\n");
            return y;
        }

        int box(String cls, String label, String state, String frame, String attrs, int top, List<Integer> members,
                java.util.function.IntFunction<ProcessState> stateOf, java.util.function.IntFunction<String> name,
                String memberCls, List<String> lines) {
            int rows = Math.max(1, (members.size() + PER_ROW - 1) / PER_ROW);
            int height = 8 + LINE + 8 + rows * (CELL + CELL_GAP) + lines.size() * LINE + 6;
            int w = WIDTH - 2 * MARGIN;
            body.append("<g class=\"").append(cls).append("\" data-label=\"").append(esc(label))
                    .append("\" data-state=\"").append(state).append('"').append(attrs).append(">\n");
            body.append("<rect class=\"frame\" x=\"").append(MARGIN).append("\" y=\"").append(top).append("\" width=\"")
                    .append(w).append("\" height=\"").append(height).append("\" rx=\"6\" fill=\"#fafafa\" stroke=\"")
                    .append(frame).append("\" stroke-width=\"3\"/>\n");
            text(MARGIN + 10, top + 8 + LINE - 4, label, "label");
            body.append("<text class=\"state\" x=\"").append(MARGIN + w - 10).append("\" y=\"").append(top + 8 + LINE - 4)
                    .append("\" text-anchor=\"end\" fill=\"").append(frame).append("\">").append(state).append("</text>\n");
            int cy = top + 8 + LINE + 6;
            for (int i = 0; i < members.size(); i++) {
                int r = members.get(i);
                ProcessState s = stateOf.apply(r);
                int cx = MARGIN + 10 + (i % PER_ROW) * (CELL + CELL_GAP);
                int ry = cy + (i / PER_ROW) * (CELL + CELL_GAP);
                body.append("<g class=\"").append(memberCls).append("\" data-rank=\"").append(r).append("\" data-state=\"")
                        .append(s.name()).append("\"><rect x=\"").append(cx).append("\" y=\"").append(ry)
                        .append("\" width=\"").append(CELL).append("\" height=\"").append(CELL).append("\" rx=\"4\" fill=\"")
                        .append(colour(s)).append("\"/><text x=\"").append(cx + CELL / 2).append("\" y=\"")
                        .append(ry + CELL / 2 + 5).append("\" text-anchor=\"middle\">").append(esc(name.apply(r)))
                        .append("</text><title>rank ").append(esc(name.apply(r))).append(": ").append(s.name())
                        .append("</title></g>\n");
            }
            int ly = cy + rows * (CELL + CELL_GAP) + LINE - 6;
            for (String l : lines) {
                text(MARGIN + 10, ly, l, "note");
                ly += LINE;
            }
            body.append("</g>\n");
            return top + height + 10;
        }

        int legend(int top, boolean communicators) {
            body.append("<g class=\"legend\">\n");
            int y = top + LINE;
            text(MARGIN, y, "processes:", "legend-title");
            int x = MARGIN + 80;
            for (ProcessState s : ProcessState.values()) x = entry(x, y, s.name(), colour(s), true);
            y += LINE + 8;
            text(MARGIN, y, communicators ? "communicators:" : "hosts:", "legend-title");
            x = MARGIN + 110;
            if (communicators) for (CommState s : CommState.values()) x = entry(x, y, s.name(), colour(s), false);
            else for (HostState s : HostState.values()) x = entry(x, y, s.name(), colour(s), false);
            body.append("</g>\n");
            return y + 10;
        }

        private int entry(int x, int y, String state, String colour, boolean filled) {
            body.append("<g class=\"legend-entry\" data-kind=\"").append(filled ? "process" : "box")
                    .append("\" data-state=\"").append(state).append("\"><rect x=\"").append(x).append("\" y=\"")
                    .append(y - 11).append("\" width=\"14\" height=\"14\" rx=\"2\" ")
                    .append(filled ? "fill=\"" + colour + "\"" : "fill=\"#fafafa\" stroke=\"" + colour + "\" stroke-width=\"3\"")
                    .append("/><text x=\"").append(x + 18).append("\" y=\"").append(y).append("\">").append(state)
                    .append("</text></g>\n");
            return x + 26 + state.length() * 8;
        }

        String finish(int height) {
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + WIDTH + "\" height=\"" + (height + MARGIN)
                    + "\" viewBox=\"0 0 " + WIDTH + " " + (height + MARGIN) + "\" font-family=\"monospace\" font-size=\"12\">\n"
                    + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body + "</svg>\n";
        }
    }

    private static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&': b.append("&amp;"); break;
                case '<': b.append("&lt;"); break;
                case '>': b.append("&gt;"); break;
                case '"': b.append("&quot;"); break;
                default: b.append(c < 0x20 && c != '\t' ? ' ' : c);
            }
        }
        return b.toString();
    }
}
