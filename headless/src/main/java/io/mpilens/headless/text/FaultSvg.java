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
 * Attributes carry the model's values so tools can read the picture back. After a REBUILD the
 * cells carry the marks of {@link MemberCell} (a replacement: {@code 2 ← pid 4711, epoch 1},
 * {@code data-epoch}, {@code data-pid}; a failed member replaced elsewhere: a second line
 * {@code FAILED → epoch 1 OK}, {@code data-replaced-by-epoch}), the box its state as users read it
 * ({@code RECOVERED (rebuilt)}, {@link CommunicatorView#stateName()}) and the lineage and
 * {@code RECOVERING} calls as the text boxes word them.
 */
public final class FaultSvg {
    private static final int WIDTH = 820;
    private static final int MARGIN = 10;
    private static final int CELL = 44;
    private static final int CELL_GAP = 6;
    private static final int LINE = 16;
    /** Width of a character of the 12 px monospace font, rounded up. */
    private static final int CHAR = 8;

    /** A process cell: its text, a second line when its state says more ({@code FAILED → epoch 1 OK}), its tooltip. */
    private record Cell(int rank, String label, String detail, ProcessState state, String tooltip, String attrs) {
    }

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
        Svg svg = new Svg();
        int y = svg.title("cominfo  job " + m.job() + "  " + m.processes().stream().mapToInt(RankStatus::rank).distinct().count()
                + " ranks  " + m.at());
        for (CommunicatorView c : m.communicators()) {
            StringBuilder attrs = new StringBuilder();
            List<String> lines = new java.util.ArrayList<>();
            if (c.parent() != null) lines.add("from " + labels.getOrDefault(c.parent(), c.parent()));
            lines.addAll(FaultBoxes.recoveryLines(c, labels));
            lines.addAll(FaultBoxes.recoveringLines(m.recovering(c.key())));
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
            List<Cell> cells = new java.util.ArrayList<>();
            for (int r : c.members()) {
                // a replacement's marks (REBUILD): the rule the Eclipse view's cells follow
                MemberCell mc = MemberCell.of(m, c, r);
                StringBuilder a = new StringBuilder();
                if (mc.epoch() != null) {
                    a.append(" data-epoch=\"").append(mc.epoch()).append('"');
                    m.member(c, r).ifPresent(st -> a.append(" data-pid=\"").append(st.pid()).append('"'));
                }
                if (mc.replacement() != null) {
                    a.append(" data-replaced-by-epoch=\"").append(mc.replacement().epoch()).append("\" data-replaced-by-pid=\"")
                            .append(mc.replacement().pid()).append('"');
                }
                cells.add(new Cell(r, mc.label(), mc.detail().equals(mc.state().name()) ? null : mc.detail(), mc.state(),
                        mc.tooltip(), a.toString()));
            }
            y = svg.box("communicator", c.label(), c.state().name(), c.stateName(), colour(c.state()), attrs.toString(), y,
                    cells, "member", lines);
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
            List<Cell> cells = new java.util.ArrayList<>();
            for (RankStatus r : h.ranks()) {
                String name = r.rank() < 0 ? "?" : Integer.toString(r.rank());
                cells.add(new Cell(r.rank(), name, null, r.state(), "rank " + name + ": " + r.state().name(), ""));
            }
            y = svg.box("host", h.host(), h.state().name(), h.state().name(), colour(h.state()), "", y, cells, "rank", lines);
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

        int box(String cls, String label, String state, String stateText, String frame, String attrs, int top,
                List<Cell> cells, String memberCls, List<String> lines) {
            int w = WIDTH - 2 * MARGIN;
            // cells as wide as the box's widest text needs ({@code 2 ← pid 4711, epoch 1}), at least CELL
            int cellW = CELL;
            for (Cell c : cells) {
                int chars = Math.max(c.label().length(), c.detail() == null ? 0 : c.detail().length());
                cellW = Math.max(cellW, chars * CHAR + 12);
            }
            cellW = Math.min(cellW, w - 20);
            int perRow = Math.max(1, (w - 20 + CELL_GAP) / (cellW + CELL_GAP));
            int rows = Math.max(1, (cells.size() + perRow - 1) / perRow);
            int height = 8 + LINE + 8 + rows * (CELL + CELL_GAP) + lines.size() * LINE + 6;
            body.append("<g class=\"").append(cls).append("\" data-label=\"").append(esc(label))
                    .append("\" data-state=\"").append(state).append('"').append(attrs).append(">\n");
            body.append("<rect class=\"frame\" x=\"").append(MARGIN).append("\" y=\"").append(top).append("\" width=\"")
                    .append(w).append("\" height=\"").append(height).append("\" rx=\"6\" fill=\"#fafafa\" stroke=\"")
                    .append(frame).append("\" stroke-width=\"3\"/>\n");
            text(MARGIN + 10, top + 8 + LINE - 4, label, "label");
            body.append("<text class=\"state\" x=\"").append(MARGIN + w - 10).append("\" y=\"").append(top + 8 + LINE - 4)
                    .append("\" text-anchor=\"end\" fill=\"").append(frame).append("\">").append(esc(stateText)).append("</text>\n");
            int cy = top + 8 + LINE + 6;
            for (int i = 0; i < cells.size(); i++) {
                Cell c = cells.get(i);
                int cx = MARGIN + 10 + (i % perRow) * (cellW + CELL_GAP);
                int ry = cy + (i / perRow) * (CELL + CELL_GAP);
                body.append("<g class=\"").append(memberCls).append("\" data-rank=\"").append(c.rank()).append("\" data-state=\"")
                        .append(c.state().name()).append('"').append(c.attrs()).append("><rect x=\"").append(cx)
                        .append("\" y=\"").append(ry).append("\" width=\"").append(cellW).append("\" height=\"").append(CELL)
                        .append("\" rx=\"4\" fill=\"").append(colour(c.state())).append("\"/><text class=\"name\" x=\"")
                        .append(cx + cellW / 2).append("\" y=\"").append(c.detail() == null ? ry + CELL / 2 + 5 : ry + CELL / 2 - 3)
                        .append("\" text-anchor=\"middle\">").append(esc(c.label())).append("</text>");
                if (c.detail() != null) {
                    body.append("<text class=\"detail\" x=\"").append(cx + cellW / 2).append("\" y=\"").append(ry + CELL / 2 + 13)
                            .append("\" text-anchor=\"middle\">").append(esc(c.detail())).append("</text>");
                }
                body.append("<title>").append(esc(c.tooltip())).append("</title></g>\n");
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

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&': b.append("&amp;"); break;
                case '<': b.append("&lt;"); break;
                case '>': b.append("&gt;"); break;
                case '"': b.append("&quot;"); break;
                default: b.append(c < 0x20 && c != '\t' && c != '\n' ? ' ' : c);
            }
        }
        return b.toString();
    }
}
