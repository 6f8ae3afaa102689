package io.mpilens.headless.text;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.TypeMap;
import io.mpilens.headless.observe.JobSnapshot;
import java.io.Console;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Handles as text for a terminal: per process a header line, then one line per handle, every
 * line at most {@value #WIDTH} columns. Orphans are marked {@code FREED*} and followed by the
 * handles that keep them alive. ANSI colour only when asked for (see {@link #colorWanted}).
 */
public final class HandleTable {
    public static final int WIDTH = 80;
    /** Released handles shown per process; the JSON output has all of them. */
    static final int RELEASED_SHOWN = 10;
    private static final String ROW = "%6s %-5s %-18s %-8s %4s %-12s %s";
    private static final String INDENT = "         ";
    /** Lines of a datatype's map shown under its row; the JSON output has all. */
    static final int MAP_LINES = 8;
    /** By {@code Topology.Type} ordinal. */
    private static final String[] TOPOLOGY = {"cart", "graph", "dgraph"};

    private static final String BOLD = "\u001b[1m";
    private static final String DIM = "\u001b[2m";
    private static final String RED = "\u001b[31m";
    private static final String GREEN = "\u001b[32m";
    private static final String YELLOW = "\u001b[33m";
    private static final String RESET = "\u001b[0m";

    private final boolean color;

    private boolean showPredefined = true;

    public HandleTable(boolean color) {
        this.color = color;
    }

    /**
     * Colour when stdout is a terminal, unless {@code --no-color} was given or the {@code NO_COLOR}
     * environment variable is set to anything non-empty (no-color.org).
     */
    public static boolean colorWanted(boolean noColorOption, Map<String, String> env) {
        if (noColorOption) return false;
        String noColor = env.get("NO_COLOR");
        if (noColor != null && !noColor.isEmpty()) return false;
        return stdoutIsTerminal();
    }

    private static boolean stdoutIsTerminal() {
        Console console = System.console();
        if (console == null) return false;
        try { // Java 22+ returns a console even when redirected; isTerminal() tells the truth there
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java < 22: a console exists only on a terminal
        }
    }

    /**
     * Whether to list predefined handles (MPI_COMM_WORLD, MPI_INT, ...). When off, only those
     * that something refers to are listed, and a count stands for the rest.
     */
    public HandleTable showPredefined(boolean show) {
        this.showPredefined = show;
        return this;
    }

    /** All ranks of a job, sorted by rank, separated by blank lines. Failures are not shown here. */
    public List<String> lines(JobSnapshot job) {
        List<String> out = new ArrayList<>();
        for (JobSnapshot.Rank r : job.ranks()) {
            if (!out.isEmpty()) out.add("");
            out.addAll(lines(r.process(), r.address()));
        }
        return out;
    }

    public List<String> lines(ProcessSnapshot p, String address) {
        List<String> out = new ArrayList<>();
        out.add(header(p, address));
        AgentHealth a = p.agentHealth();
        if (a != null && !a.healthy() && a.lastError() != null) {
            out.add(paint(RED, fit("  agent's last error: " + a.lastError())));
        }
        if (a != null && !a.requestsTracked()) {
            out.add(fit("  requests not tracked (agent option requests=false): none shown, none hold a handle"));
        }
        if (a != null && a.untrackedEvents() > 0) {
            out.add(fit("  " + a.untrackedEvents() + " MPI events the agent could not track"));
        }
        if (p.tornRows() > 0) {
            out.add(fit("  " + p.tornRows() + " handles skipped: being changed while read (read again or --suspend)"));
        }
        if (p.handles().isEmpty()) {
            out.add("  (no MPI handles)");
        } else {
            out.add(String.format(ROW, "ID", "KIND", "NAME", "STATE", "REFS", "WHERE", "CREATED AT").stripTrailing());
            Map<Long, HandleInfo> byId = new HashMap<>();
            for (HandleInfo h : p.handles()) byId.put(h.id(), h);
            Map<Long, HandleInfo> withReleased = TypeMap.index(p);
            int hidden = 0;
            for (HandleInfo h : p.handles()) {
                if (!showPredefined && h.predefined() && h.refCount() == 0 && !"MPI_COMM_WORLD".equals(h.name())) {
                    hidden++;
                    continue;
                }
                out.add(row(h));
                if (h.isOrphan()) out.add(paint(YELLOW, fit(INDENT + "orphan, held by " + holders(h, byId))));
                if (h.leaked()) out.add(paint(RED, fit(INDENT + "leaked: its wrapper was garbage-collected without free()")));
                out.addAll(detailLines(h));
                if (TypeMap.shownFor(h)) out.addAll(typeMapLines(TypeMap.of(h, p.binding(), withReleased)));
            }
            if (hidden > 0) out.add(INDENT + "+ " + hidden + " predefined handles nothing refers to (--all lists them)");
        }
        if (!p.errors().isEmpty()) {
            out.add("  MPI exceptions raised, newest first:");
            for (int i = 0; i < Math.min(p.errors().size(), RELEASED_SHOWN); i++) out.add(paint(RED, error(p.errors().get(i), p)));
            if (p.errors().size() > RELEASED_SHOWN) {
                out.add(INDENT + "... " + (p.errors().size() - RELEASED_SHOWN) + " more (see --json)");
            }
        }
        List<HandleInfo> released = p.released();
        if (!released.isEmpty()) {
            out.add("  recently released, newest first:");
            for (int i = 0; i < Math.min(released.size(), RELEASED_SHOWN); i++) out.add(row(released.get(i)));
            if (released.size() > RELEASED_SHOWN) {
                out.add(INDENT + "... " + (released.size() - RELEASED_SHOWN) + " more (see --json)");
            }
        }
        return out;
    }

    /** A file's name and mode, an info's pairs (a handle's as its info had them), cached attributes: one line each. */
    private List<String> detailLines(HandleInfo h) {
        List<String> out = new ArrayList<>();
        if (h.kind() == HandleKind.FILE && h.fileName() != null) {
            out.add(fit(INDENT + "file " + h.fileName() + (h.accessModeFlags() == null ? "" : "  " + h.accessModeFlags())));
        }
        if (h.hasInfoPairs()) {
            StringBuilder s = new StringBuilder(INDENT).append(h.kind() == HandleKind.INFO ? "pairs: " : "opened with info: ");
            if (h.infoPairs().isEmpty()) s.append("(none)");
            s.append(pairs(h.infoPairs()));
            if (h.infoPairCount() > h.infoPairs().size()) s.append(" ... ").append(h.infoPairCount()).append(" in all");
            out.add(fit(s.toString()));
        }
        if (!h.attributes().isEmpty()) out.add(fit(INDENT + "attributes: " + pairs(h.attributes())));
        return out;
    }

    /** {@code k=v, k=v} in the map's order. */
    private static String pairs(Map<?, ?> m) {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<?, ?> e : m.entrySet()) s.append(s.length() == 0 ? "" : ", ").append(e.getKey()).append('=').append(e.getValue());
        return s.toString();
    }

    /**
     * A derived datatype's map under its row: a summary line, then one line per run and per hole
     * in displacement order (runs in type map order, holes after them, when the map goes back
     * and forth), at most {@value #MAP_LINES} of them.
     */
    List<String> typeMapLines(TypeMap m) {
        List<String> out = new ArrayList<>();
        if (!m.known()) {
            out.add(fit(INDENT + "map not known: " + m.whyUnknown()));
            return out;
        }
        String unit = m.unit().label() + "s";
        StringBuilder head = new StringBuilder(INDENT + "map: ").append(m.size()).append(" of ").append(m.extent())
                .append(' ').append(unit).append(" data");
        if (m.cut()) head.append(", first ").append(m.runs().size()).append(" runs shown");
        else head.append(", ").append(m.holeTotal()).append(" in holes");
        if (m.lowerBound() != 0) head.append(", lb ").append(m.lowerBound());
        out.add(fit(head.toString()));
        List<String> lines = new ArrayList<>();
        boolean ordered = true;
        for (int i = 1; i < m.runs().size(); i++) {
            if (m.runs().get(i).displacement() < m.runs().get(i - 1).end()) ordered = false;
        }
        if (ordered) {
            for (TypeMap.Span s : m.spans()) lines.add(s.isHole() ? holeLine(s.hole()) : runLine(s.run()));
        } else {
            for (TypeMap.Run r : m.runs()) lines.add(runLine(r));
            for (TypeMap.Hole hole : m.holes()) lines.add(holeLine(hole));
        }
        for (int i = 0; i < lines.size(); i++) {
            if (i == MAP_LINES - 1 && lines.size() > MAP_LINES) {
                out.add(INDENT + "  ... " + (lines.size() - i) + " more lines (--json has the whole map)");
                break;
            }
            String line = fit(lines.get(i));
            out.add(line.contains(" hole of ") ? paint(YELLOW, line) : line);
        }
        return out;
    }

    private static String runLine(TypeMap.Run r) {
        return String.format("%s  @%-6d %s x%d", INDENT, r.displacement(), r.type(), r.count());
    }

    private static String holeLine(TypeMap.Hole hole) {
        return String.format("%s  @%-6d hole of %d", INDENT, hole.displacement(), hole.length());
    }

    /** The host name gives way first when the line is too long: the states matter more. */
    private String header(ProcessSnapshot p, String address) {
        StringBuilder left = new StringBuilder("rank ");
        left.append(p.rank() >= 0 ? Integer.toString(p.rank()) : "?");
        if (p.worldSize() >= 0) left.append('/').append(p.worldSize());
        left.append("  pid ").append(p.pid());
        AgentHealth a = p.agentHealth();
        boolean ok = a == null || a.healthy();
        String agent = ok ? "agent ok" : "agent: " + a.internalErrors() + " errors";
        String rest = (p.binding() == null ? "" : "  " + p.binding()) + "  " + p.mpiState() + "  " + agent;
        String host = "";
        if (p.host() != null) {
            int room = WIDTH - left.length() - rest.length() - " on ".length();
            host = room >= 4 ? " on " + clip(p.host(), room) : "";
        }
        String plain = left + host + rest;
        if (address != null && plain.length() + 3 + address.length() <= WIDTH) plain += "  @" + address;
        plain = fit(plain);
        if (!color) return plain;
        int at = plain.lastIndexOf(agent);
        if (at < 0) return BOLD + plain + RESET;
        return BOLD + plain.substring(0, at) + RESET + paint(ok ? GREEN : RED, plain.substring(at, at + agent.length()))
                + plain.substring(at + agent.length());
    }

    private String row(HandleInfo h) {
        String state = state(h);
        String before = String.format("%6s %-5s %-18s ", HandleIds.format(h.id()), shortKind(h.kind()), clip(label(h), 18));
        String after = String.format(" %4s %-12s ", h.state() == Lifecycle.RELEASED ? "" : Integer.toString(h.refCount()),
                clip(where(h), 12));
        String prefix = before + String.format("%-8s", state) + after;
        // the site takes what is left of the width, cut from the left: the line number matters most
        String site = shortSite(h.createdAt());
        String line = fit((prefix + (site == null ? "" : clipLeft(site, WIDTH - prefix.length()))).stripTrailing());
        if (!color) return line;
        if (h.state() == Lifecycle.RELEASED) return paint(DIM, line);
        String colour = h.leaked() ? RED : h.isOrphan() ? YELLOW : null;
        if (colour == null || line.length() < before.length() + state.length()) return line;
        int at = before.length();
        return line.substring(0, at) + paint(colour, state) + line.substring(at + state.length());
    }

    private static String state(HandleInfo h) {
        if (h.leaked()) return "LEAKED";
        switch (h.state()) {
            case FREED: return "FREED*";
            case RELEASED: return "released";
            default: return "active";
        }
    }

    /** The name a user knows it by: MPI name, else the call that made it, else its class. */
    private static String label(HandleInfo h) {
        if (h.name() != null && !h.name().isEmpty()) return h.name();
        if (h.fileName() != null) return h.fileName().substring(h.fileName().lastIndexOf('/') + 1);
        if (h.creatingCall() != null) return h.creatingCall();
        if (h.bindingClass() != null) return h.bindingClass().substring(h.bindingClass().lastIndexOf('.') + 1);
        return "-";
    }

    private static String where(HandleInfo h) {
        switch (h.kind()) {
            case COMMUNICATOR:
            case GROUP: {
                if (h.size() == HandleInfo.UNKNOWN) return "";
                String rank = h.rank() == HandleInfo.UNKNOWN ? "?" : h.rank() < 0 ? "-" : Integer.toString(h.rank());
                String s = rank + "/" + h.size();
                if (h.inter()) s = "inter " + s;
                else if (h.topology() != null) s += " " + TOPOLOGY[h.topology().type().ordinal()];
                return s;
            }
            case REQUEST: {
                StringBuilder s = new StringBuilder();
                if (h.peer() != HandleInfo.UNKNOWN) s.append("peer ").append(h.peer());
                if (h.tag() != HandleInfo.UNKNOWN) s.append(s.length() > 0 ? " " : "").append("tag ").append(h.tag());
                if (h.complete()) s.insert(0, "done ");
                return s.toString();
            }
            case DATATYPE:
                // as the binding reports it: Open MPI's Java API and MPJ count base-type elements
                return h.typeSize() == HandleInfo.UNKNOWN ? "" : "size " + h.typeSize();
            case WINDOW:
                return h.windowSize() == HandleInfo.UNKNOWN ? "" : h.windowSize() + " bytes";
            case ERRHANDLER:
                return h.attachedTo().length == 0 ? "" : "on " + h.attachedTo().length;
            case INFO:
                return h.hasInfoPairs() ? h.infoPairCount() + (h.infoPairCount() == 1 ? " pair" : " pairs") : "";
            case FILE:
                return h.accessModeFlags() == null ? "" : h.accessModeFlags().replace("MODE_", "").toLowerCase(Locale.ROOT);
            default:
                return "";
        }
    }

    private static String holders(HandleInfo h, Map<Long, HandleInfo> byId) {
        long[] ids = h.heldBy();
        if (ids.length == 0) return "(holders not known)";
        StringBuilder s = new StringBuilder();
        for (long id : ids) {
            if (s.length() > 0) s.append(", ");
            s.append(HandleIds.format(id));
            HandleInfo holder = byId.get(id);
            if (holder != null) s.append(" (").append(holder.kind().name().toLowerCase(Locale.ROOT)).append(')');
        }
        return s.toString();
    }

    static String shortKind(HandleKind k) {
        switch (k) {
            case COMMUNICATOR: return "comm";
            case REQUEST: return "req";
            case DATATYPE: return "type";
            case GROUP: return "group";
            case WINDOW: return "win";
            case ERRHANDLER: return "errh";
            case MESSAGE: return "msg";
            default: return k.name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code pkg.Class.method(File.java:42)} becomes {@code File.java:42}. */
    static String shortSite(String frame) {
        if (frame == null) return null;
        int open = frame.lastIndexOf('(');
        int close = frame.lastIndexOf(')');
        return open >= 0 && close > open ? frame.substring(open + 1, close) : frame;
    }

    /** One line: call, handle, peer, error class, then the cause, which gives way first. */
    private static String error(MpiError e, ProcessSnapshot p) {
        StringBuilder b = new StringBuilder(INDENT).append(e.call() == null ? "?" : e.call());
        if (e.handleId() != HandleInfo.NONE) {
            String name = p.handle(e.handleId()).map(HandleInfo::name).orElse(null);
            b.append(" on ").append(name != null ? name : HandleIds.label(e.handleId()));
        }
        if (e.peer() != HandleInfo.UNKNOWN) b.append(" peer ").append(e.peer());
        if (e.errorClass() != HandleInfo.UNKNOWN) b.append(" class ").append(e.errorClass());
        String cause = e.causeClass() == null ? "" : e.causeClass().substring(e.causeClass().lastIndexOf('.') + 1);
        if (e.message() != null && !e.message().isBlank()) cause += (cause.isEmpty() ? "" : ": ") + e.message().strip();
        if (!cause.isEmpty()) b.append(": ").append(cause);
        return fit(b.toString().replace('\n', ' '));
    }

    private static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }

    private static String clipLeft(String s, int width) {
        if (s.length() <= width) return s;
        return width <= 3 ? "" : "..." + s.substring(s.length() - (width - 3));
    }

    private static String fit(String s) {
        return clip(s, WIDTH);
    }

    private String paint(String colour, String s) {
        return color ? colour + s + RESET : s;
    }
}
