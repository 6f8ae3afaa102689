package io.mpilens.headless.text;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code cominfo} and {@code hostinfo} as boxes of text, {@link HandleTable#WIDTH} columns.
 * Members are COMM_WORLD ranks marked by state: {@code 2x} failed, {@code 3?} unavailable,
 * {@code 1.} finalized; runs of three or more are shortened ({@link RankRanges}: {@code 3-63},
 * {@code 4-6x}). ANSI colour only when asked for.
 */
public final class FaultBoxes {
    private static final int W = HandleTable.WIDTH;
    private static final String RED = "\u001b[31m";
    private static final String YELLOW = "\u001b[33m";
    private static final String GREEN = "\u001b[32m";
    private static final String RESET = "\u001b[0m";

    private final boolean color;

    public FaultBoxes(boolean color) {
        this.color = color;
    }

    /** {@code job ID  4 ranks  2026-11-22T01:20:50Z}: the round's time to the second, as ISO-8601 UTC. */
    static String header(JobModel m, int count, String noun) {
        return "job " + m.job() + "  " + count + " " + noun + (count == 1 ? "" : "s") + "  "
                + m.at().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    }

    public List<String> cominfo(JobModel m) {
        List<String> out = new ArrayList<>();
        Map<String, String> labels = new HashMap<>();
        for (CommunicatorView c : m.communicators()) labels.put(c.key(), c.label());
        Map<Integer, ProcessState> states = states(m);
        out.add(header(m, m.processes().size(), "rank"));
        if (m.communicators().isEmpty()) out.add("(no communicator known: no rank could be read yet)");
        List<Integer> untracked = requestsUntracked(m);
        if (!untracked.isEmpty()) {
            out.add(cut("requests not tracked on ranks " + ranks(untracked)
                    + " (agent option requests=false): pending requests on a failed peer cannot be shown", W));
        }
        for (CommunicatorView c : m.communicators()) {
            List<String> body = new ArrayList<>();
            body.add("members " + members(c.members(), states));
            if (!c.failed().isEmpty()) body.add("failed  " + ranks(c.failed()));
            if (!c.unavailable().isEmpty()) body.add("suspect " + ranks(c.unavailable()) + " (no answer in time, not known dead)");
            if (!c.raisedOn().isEmpty()) body.add("raised  MPI exceptions on ranks " + ranks(c.raisedOn()));
            if (!m.failedOn(c.key()).isEmpty()) {
                body.add(paint("FAILED  on ranks " + ranks(m.failedOn(c.key())) + " (transport closed: nothing can be sent)", RED));
            }
            if (c.parent() != null) body.add("from    " + labels.getOrDefault(c.parent(), c.parent()));
            for (String r : c.recoveredBy()) body.add("rebuilt as " + labels.getOrDefault(r, r) + " without the failed members");
            body.addAll(paintAll(pendingLines(m.pendingOnFailed(c.key())), RED));
            out.addAll(box(c.label(), paint(c.state().name(), c.state() == CommState.OK ? GREEN
                    : c.state() == CommState.RECOVERED ? YELLOW : RED), c.state().name().length(), body));
        }
        return out;
    }

    /** Ranks read whose agent runs with {@code requests=false}. */
    static List<Integer> requestsUntracked(JobModel m) {
        List<Integer> out = new ArrayList<>();
        for (io.mpilens.headless.ft.RankStatus r : m.processes()) {
            if (r.snapshot() != null && r.snapshot().agentHealth() != null && !r.snapshot().agentHealth().requestsTracked()) {
                out.add(r.rank());
            }
        }
        return out;
    }

    /**
     * One line per call, the ranks that are inside the same one (same method, receiver, peer,
     * thread name and verdict) on one line: {@code ranks 0 1 3-63  barrier on MPI_COMM_WORLD
     * [main]  NEVER COMPLETES: FAILED [2]}. A call that waits for a FAILED rank is
     * flagged in red. When the rank list would crowd the call off the line, the line says how
     * many ranks and the list follows, indented, over as many lines as it needs.
     */
    public List<String> calls(JobModel m, List<InFlightCall> calls) {
        List<String> out = new ArrayList<>();
        out.add(header(m, m.processes().size(), "rank"));
        if (calls.isEmpty()) out.add("(no thread of a readable rank is inside an MPI call)");
        Map<String, List<InFlightCall>> groups = new LinkedHashMap<>();
        for (InFlightCall c : calls) {
            String same = callText(c) + "\n" + c.thread() + "\n" + c.neverCompletes() + c.failedPeers();
            groups.computeIfAbsent(same, k -> new ArrayList<>()).add(c);
        }
        for (List<InFlightCall> g : groups.values()) {
            InFlightCall c = g.get(0);
            List<Integer> ranks = g.stream().map(InFlightCall::rank).distinct().sorted().toList();
            String line = RankRanges.who(ranks) + "  " + callText(c);
            String flag = c.neverCompletes() ? "  NEVER COMPLETES: FAILED " + ranks(c.failedPeers()) : "";
            String thread = "  [" + c.thread() + "]";
            if (line.length() + flag.length() + thread.length() <= W) line += thread;
            line = line + flag;
            if (line.length() > W) line = line.substring(0, W - 3) + "...";
            out.add(c.neverCompletes() ? paint(line, RED) : line);
            out.addAll(RankRanges.listedApart(ranks, W));
        }
        if (!m.pendingOnFailed().isEmpty()) {
            out.add("requests pending on a FAILED peer (they can never complete):");
            for (PendingOnFailedPeer p : m.pendingOnFailed()) {
                String line = "rank " + p.rank() + "  " + (p.call() == null ? "request" : p.call()) + " #" + p.requestId()
                        + " on " + p.communicatorLabel() + "  peer " + p.peer() + " tag " + p.tag();
                out.add(paint(cut(line, W), RED));
            }
        }
        return out;
    }

    /** {@code barrier on MPI_COMM_WORLD}, {@code send on MPI_COMM_WORLD peer 3}. */
    private static String callText(InFlightCall c) {
        String method = c.call().substring(c.call().lastIndexOf('.') + 1);
        String on = c.receiver() == null ? "" : " on " + c.receiver();
        String peer = c.peer() >= 0 ? " peer " + c.peer() : "";
        return method + on + peer;
    }

    /** {@code [2]}, {@code [4-6, 9]}: a rank list in brackets, runs shortened. */
    static String ranks(List<Integer> ranks) {
        return "[" + RankRanges.format(ranks, ", ") + "]";
    }

    /** Per rank: {@code rank 0: 2 requests pending on FAILED 2: iRecv #53, iRecv #60}. */
    private static List<String> pendingLines(List<PendingOnFailedPeer> pending) {
        Map<Integer, List<PendingOnFailedPeer>> byRank = new TreeMap<>();
        for (PendingOnFailedPeer p : pending) byRank.computeIfAbsent(p.rank(), k -> new ArrayList<>()).add(p);
        List<String> out = new ArrayList<>();
        for (Map.Entry<Integer, List<PendingOnFailedPeer>> e : byRank.entrySet()) {
            List<PendingOnFailedPeer> ps = e.getValue();
            StringBuilder b = new StringBuilder("rank " + e.getKey() + ": " + ps.size() + " request"
                    + (ps.size() == 1 ? "" : "s") + " pending on FAILED "
                    + ranks(ps.stream().map(PendingOnFailedPeer::peer).distinct().sorted().toList()) + ":");
            for (int i = 0; i < ps.size(); i++) {
                b.append(i == 0 ? " " : ", ").append(ps.get(i).call() == null ? "req" : ps.get(i).call())
                        .append(" #").append(ps.get(i).requestId());
            }
            out.add(b.toString());
        }
        return out;
    }

    private List<String> paintAll(List<String> lines, String code) {
        List<String> out = new ArrayList<>();
        for (String l : lines) out.add(paint(cut(l, W - 4), code));
        return out;
    }

    public List<String> hostinfo(JobModel m) {
        List<String> out = new ArrayList<>();
        out.add(header(m, m.hosts().size(), "host"));
        for (HostView h : m.hosts()) {
            List<String> body = new ArrayList<>();
            for (HostView.Daemon d : h.daemons()) {
                body.add("daemon  " + d.command() + " pid " + d.pid() + (d.alive() ? "" : "  GONE"));
            }
            for (RankStatus r : h.ranks()) {
                String head = String.format("rank %-3s pid %-7s %-11s", r.rank() < 0 ? "?" : Integer.toString(r.rank()),
                        r.pid() > 0 ? Long.toString(r.pid()) : "?", r.state() + (r.epoch() > 0 ? "/e" + r.epoch() : ""));
                body.add(head.replace(r.state().name(), paint(r.state().name(), colorOf(r.state())))
                        + " " + (r.evidence() == null ? "" : r.evidence()));
            }
            out.addAll(box(h.host(), paint(h.state().name(), h.state().name().equals("UP") ? GREEN
                    : h.state().name().equals("DOWN") ? RED : YELLOW), h.state().name().length(), body));
        }
        return out;
    }

    private String colorOf(ProcessState s) {
        switch (s) {
            case OK: return GREEN;
            case FAILED: return RED;
            case UNAVAILABLE: return YELLOW;
            default: return "";
        }
    }

    private static Map<Integer, ProcessState> states(JobModel m) {
        Map<Integer, ProcessState> out = new HashMap<>();
        for (RankStatus r : m.processes()) out.put(r.rank(), r.state());
        return out;
    }

    private static String members(List<Integer> members, Map<Integer, ProcessState> states) {
        return RankRanges.format(members, r -> {
            ProcessState s = states.get(r);
            return s == ProcessState.FAILED ? "x" : s == ProcessState.UNAVAILABLE ? "?" : s == ProcessState.FINALIZED ? "." : "";
        }, " ");
    }

    /** {@code +- title ------- STATE -+}, the body lines cut to fit, a closing line. */
    private List<String> box(String title, String state, int stateWidth, List<String> body) {
        List<String> out = new ArrayList<>();
        String t = cut(title, W - stateWidth - 10);
        int dashes = W - 4 - t.length() - 2 - stateWidth - 3;
        out.add("+- " + t + " " + "-".repeat(Math.max(1, dashes)) + " " + state + " -+");
        for (String line : body) {
            int visible = line.replaceAll("\u001b\\[[0-9;]*m", "").length();
            String l = visible > W - 4 ? cut(line, W - 4) : line;
            int pad = W - 4 - (visible > W - 4 ? W - 4 : visible);
            out.add("| " + l + " ".repeat(Math.max(0, pad)) + " |");
        }
        out.add("+" + "-".repeat(W - 2) + "+");
        return out;
    }

    private static String cut(String s, int n) {
        return s.length() <= n ? s : s.substring(0, Math.max(0, n - 3)) + "...";
    }

    private String paint(String s, String code) {
        return color && !code.isEmpty() ? code + s + RESET : s;
    }
}
