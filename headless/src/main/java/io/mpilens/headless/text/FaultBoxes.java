package io.mpilens.headless.text;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.HandleIds;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.StatusWord;
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

    /**
     * {@code status  ER_OTH (8): rank 2 FAILED}: the job's {@link StatusWord}, cut at 80 columns;
     * green when OK, yellow for alarms only, red otherwise.
     */
    public String statusLine(JobModel m) {
        return statusLine(m.status());
    }

    public String statusLine(StatusWord w) {
        String name = w.name() + " (" + w.bits() + ")";
        String rest = w.reasons().isEmpty() ? "" : ": " + w.because();
        String line = cut("status  " + name + rest, W);
        return line.replace(name, paint(name, colorOf(w)));
    }

    /** The colour of a status word: green OK, yellow alarms only, red an error or an undefined rank. */
    static String colorOf(StatusWord w) {
        return w.ok() ? GREEN : (w.bits() & ~(StatusWord.AL_PR0 | StatusWord.AL_OTH)) == 0 ? YELLOW : RED;
    }

    public List<String> cominfo(JobModel m) {
        List<String> out = new ArrayList<>();
        Map<String, String> labels = new HashMap<>();
        for (CommunicatorView c : m.communicators()) labels.put(c.key(), c.label());
        out.add(header(m, (int) m.processes().stream().mapToInt(RankStatus::rank).distinct().count(), "rank"));
        out.add(statusLine(m));
        if (m.communicators().isEmpty()) out.add("(no communicator known: no rank could be read yet)");
        List<Integer> untracked = requestsUntracked(m);
        if (!untracked.isEmpty()) {
            out.add(cut("requests not tracked on ranks " + ranks(untracked)
                    + " (agent option requests=false): pending requests on a failed peer cannot be shown", W));
        }
        for (CommunicatorView c : m.communicators()) {
            List<String> body = new ArrayList<>();
            Map<Integer, ProcessState> states = new HashMap<>();
            for (int r : c.members()) m.member(c, r).ifPresent(s -> states.put(r, s.state()));
            body.add(c.inter()
                    ? "members " + members(c.groups().get(0), states) + " | " + members(c.groups().get(1), states)
                            + "  (intercommunicator)"
                    : "members " + members(c.members(), states));
            if (!c.failed().isEmpty()) body.add("failed  " + ranks(c.failed()));
            if (!c.unavailable().isEmpty()) body.add("suspect " + ranks(c.unavailable()) + " (no answer in time, not known dead)");
            if (!c.raisedOn().isEmpty()) body.add("raised  MPI exceptions on ranks " + ranks(c.raisedOn()));
            if (!m.failedOn(c.key()).isEmpty()) {
                body.add(paint("FAILED  on ranks " + ranks(m.failedOn(c.key())) + " (transport closed: nothing can be sent)", RED));
            }
            if (c.parent() != null) body.add("from    " + labels.getOrDefault(c.parent(), c.parent()));
            body.addAll(recoveryLines(c, labels));
            c.epochs().forEach((r, e) -> m.member(c, r).ifPresent(s -> body.add("replaced " + r + " <- pid " + s.pid()
                    + ", epoch " + e + " (" + s.state() + ")")));
            body.addAll(recoveringLines(m.recovering(c.key())));
            body.addAll(paintAll(pendingLines(m.pendingOnFailed(c.key())), RED));
            String state = c.stateName();
            out.addAll(box(c.label(), paint(state, c.state() == CommState.OK ? GREEN
                    : c.state() == CommState.RECOVERED || c.state() == CommState.RECOVERING ? YELLOW : RED), state.length(), body));
        }
        return out;
    }

    /**
     * {@code rebuilt as survivors without the failed members} per shrink that recovered it, and
     * {@code rebuilt with replacements as merge(spawn(survivors)), rebuilt} when a REBUILD did.
     */
    static List<String> recoveryLines(CommunicatorView c, Map<String, String> labels) {
        List<String> out = new ArrayList<>();
        for (String r : c.recoveredBy()) {
            if (!c.rebuiltBy().contains(r)) out.add("rebuilt as " + labels.getOrDefault(r, r) + " without the failed members");
        }
        if (c.rebuilt()) {
            out.add("rebuilt with replacements as " + String.join(", ",
                    c.rebuiltBy().stream().map(k -> labels.getOrDefault(k, k)).toList()));
        }
        return out;
    }

    /** {@code inside  ranks 0 1 3: spawn on survivors}: who is inside which call that rebuilds a RECOVERING communicator. */
    static List<String> recoveringLines(List<InFlightCall> calls) {
        return recoveringCalls(calls).stream().map(c -> "inside  " + c).toList();
    }

    /** {@code ranks 0 1 3: spawn on survivors}: per call (method and receiver) that rebuilds a communicator, who is inside it. */
    public static List<String> recoveringCalls(List<InFlightCall> calls) {
        Map<String, List<Integer>> byCall = new LinkedHashMap<>();
        for (InFlightCall c : calls) {
            String call = c.call().substring(c.call().lastIndexOf('.') + 1) + (c.receiver() == null ? "" : " on " + c.receiver());
            byCall.computeIfAbsent(call, k -> new ArrayList<>()).add(c.rank());
        }
        List<String> out = new ArrayList<>();
        byCall.forEach((call, ranks) -> out.add(RankRanges.who(ranks.stream().distinct().sorted().toList()) + ": " + call));
        return out;
    }

    /** Ranks read whose agent runs with {@code requests=false}. */
    static List<Integer> requestsUntracked(JobModel m) {
        List<Integer> out = new ArrayList<>();
        for (RankStatus r : m.processes()) {
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
        out.add(header(m, (int) m.processes().stream().mapToInt(RankStatus::rank).distinct().count(), "rank"));
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
                String line = "rank " + p.rank() + "  " + (p.call() == null ? "request" : p.call()) + " " + HandleIds.label(p.requestId())
                        + " on " + p.communicatorLabel() + "  peer " + p.peer() + " tag " + p.tag();
                out.add(paint(cut(line, W), RED));
            }
        }
        return out;
    }

    /**
     * The wait-for analysis under the calls: ranks that cannot progress, grouped by what they are
     * in and whom they wait for. A deadlock is only called one when two looks saw nothing move;
     * after one look it is a possible one, with the option that checks.
     */
    public List<String> waitFor(WaitFor.Analysis a, WaitFor.Looks looks) {
        return waitFor(a, looks, CONFIRM_HINT);
    }

    /** What follows a possible deadlock of {@code calls} at one look: how to look again. */
    public static final String CONFIRM_HINT = "  (a message still in flight looks the same: --confirm 5 looks again 5 s later)";

    /** @param oneLookHint what follows a possible deadlock seen at one look: how to look again */
    public List<String> waitFor(WaitFor.Analysis a, WaitFor.Looks looks, String oneLookHint) {
        List<String> out = new ArrayList<>();
        for (Section s : waitForSections(a, looks, oneLookHint)) out.addAll(s.lines());
        return out;
    }

    /**
     * One verdict of the wait-for analysis as {@link #waitFor} prints it: its headline first, then
     * the lines that explain it ({@code verdict} is the verdict of the ranks the headline names).
     */
    public record Section(WaitFor.Verdict verdict, List<String> lines) {
    }

    /** {@link #waitFor}'s lines by verdict, in the order printed (a picture colours each by its verdict). */
    public List<Section> waitForSections(WaitFor.Analysis a, WaitFor.Looks looks, String oneLookHint) {
        List<Section> sections = new ArrayList<>();
        if (!a.any()) return sections;
        // NaN: the looks' distance in time says nothing (a debugger's two suspensions of the job)
        boolean timed = !Double.isNaN(looks.secondsApart());
        String seconds = String.format(java.util.Locale.ROOT, "%.1f s", looks.secondsApart());
        if (looks.count() < 2 && !a.deadlocked().isEmpty()) {
            List<String> out = new ArrayList<>();
            out.add(paint(cut("possible deadlock (one look): " + waitEachOther(a.onCycles()),
                    W), YELLOW));
            out.addAll(RankRanges.listedApart(a.onCycles(), W));
            out.addAll(cycleAndWaits(a, a.onCycles()));
            List<Integer> behind = new ArrayList<>(a.deadlocked());
            behind.removeAll(a.onCycles());
            out.addAll(behindLines(a, a.deadlocked(), behind));
            out.add(oneLookHint);
            sections.add(new Section(WaitFor.Verdict.POSSIBLE, out));
        }
        if (!looks.confirmed().isEmpty()) {
            List<String> out = new ArrayList<>();
            out.add(paint(cut("DEADLOCK: " + waitEachOther(looks.confirmed()) + "; no blocking"
                    + " call returned " + (timed ? "in " + seconds : "in between"), W), RED));
            out.addAll(RankRanges.listedApart(looks.confirmed(), W));
            out.addAll(cycleAndWaits(a, looks.confirmed()));
            List<Integer> doomed = new ArrayList<>(looks.confirmed());
            doomed.addAll(looks.behind());
            out.addAll(behindLines(a, doomed, looks.behind()));
            sections.add(new Section(WaitFor.Verdict.DEADLOCK, out));
        }
        if (!looks.moved().isEmpty()) {
            List<String> out = new ArrayList<>();
            out.add(cut(looks.counted()
                    ? "not deadlocked: " + RankRanges.who(looks.moved()) + " looked stuck, but there was progress "
                            + (timed ? "within " + seconds : "in between")
                    : "cannot confirm: " + RankRanges.who(looks.moved()) + " look stuck, but an agent does not count"
                            + " blocking calls", W));
            out.addAll(RankRanges.listedApart(looks.moved(), W));
            sections.add(new Section(looks.counted() ? WaitFor.Verdict.PROGRESS : WaitFor.Verdict.UNCONFIRMED, out));
        }
        if (!a.behindFinalized().isEmpty()) {
            List<String> out = new ArrayList<>();
            List<Integer> finalized = finalizedAwaited(a, a.behindFinalized());
            out.add(paint(cut(RankRanges.who(a.behindFinalized()) + " wait, directly or through others, for FINALIZED "
                    + ranks(finalized) + ": it sends no more", W), YELLOW));
            out.addAll(RankRanges.listedApart(a.behindFinalized(), W));
            out.addAll(waitLines(a, a.behindFinalized()));
            sections.add(new Section(WaitFor.Verdict.BEHIND_FINALIZED, out));
        }
        // ranks already flagged NEVER COMPLETES above need no second word; those behind them do
        List<Integer> behind = new ArrayList<>();
        for (int r : a.behindFailed()) {
            boolean flagged = a.waits().stream().anyMatch(w -> w.call().rank() == r && w.call().neverCompletes());
            if (!flagged) behind.add(r);
        }
        if (!behind.isEmpty()) {
            List<String> out = new ArrayList<>();
            out.add(paint(cut(RankRanges.who(behind) + " never complete either: they wait for ranks that wait for"
                    + " a FAILED one", W), RED));
            out.addAll(RankRanges.listedApart(behind, W));
            out.addAll(waitLines(a, behind));
            sections.add(new Section(WaitFor.Verdict.NEVER_COMPLETES, out));
        }
        return sections;
    }

    /** {@code ranks 0 1 wait for each other}, or {@code rank 5 waits for itself} (a receive from its own rank). */
    public static String waitEachOther(List<Integer> ranks) {
        return ranks.size() == 1 ? "rank " + ranks.get(0) + " waits for itself"
                : RankRanges.who(ranks) + " wait for each other";
    }

    /** {@code   stuck behind them: rank 2} and its calls, naming only the awaited ranks among {@code stuck}. */
    private static List<String> behindLines(WaitFor.Analysis a, List<Integer> stuck, List<Integer> behind) {
        List<String> out = new ArrayList<>();
        if (behind.isEmpty()) return out;
        out.add(cut("  stuck behind them: " + RankRanges.who(behind), W));
        for (String l : RankRanges.listedApart(behind, W - 2)) out.add("  " + l);
        for (String l : waitLines(a, behind, new java.util.HashSet<>(stuck))) out.add("  " + l);
        return out;
    }

    private static List<String> cycleAndWaits(WaitFor.Analysis a, List<Integer> ranks) {
        List<String> out = new ArrayList<>();
        List<Integer> cycle = WaitFor.cycle(a, ranks);
        if (cycle.size() > 1) {
            out.add(cut("  cycle " + cycleText(cycle), W));
        }
        out.addAll(waitLines(a, ranks));
        return out;
    }

    /** {@code   ranks 2 3  barrier on MPI_COMM_WORLD  wait for 0 1}, one line per same call and same awaited ranks. */
    private static List<String> waitLines(WaitFor.Analysis a, List<Integer> of) {
        return waitLines(a, of, null);
    }

    /** @param among only these awaited ranks are named (null: all) */
    private static List<String> waitLines(WaitFor.Analysis a, List<Integer> of, java.util.Set<Integer> among) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (WaitFor.Wait w : a.waits()) {
            List<Integer> on = among == null ? w.on() : w.on().stream().filter(among::contains).toList();
            if (!of.contains(w.call().rank()) || on.isEmpty()) continue;
            String key = callText(w.call()) + "\n" + on;
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(w.call().rank());
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : groups.entrySet()) {
            List<Integer> ranks = e.getValue().stream().distinct().sorted().toList();
            String[] parts = e.getKey().split("\n");
            String on = parts[1].substring(1, parts[1].length() - 1).replace(",", "");
            String waits = ranks.size() == 1 ? "waits for " : "wait for ";
            out.add(cut("  " + RankRanges.who(ranks) + "  " + parts[0] + "  " + waits
                    + RankRanges.format(java.util.Arrays.stream(on.split(" ")).map(Integer::valueOf).toList(), " "), W));
            for (String l : RankRanges.listedApart(ranks, W - 2)) out.add("  " + l);
        }
        return out;
    }

    /** The ranks {@code of} wait for that are not stuck themselves: FINALIZED (or FAILED) ones. */
    private static List<Integer> finalizedAwaited(WaitFor.Analysis a, List<Integer> of) {
        java.util.Set<Integer> stuck = new java.util.HashSet<>(a.stuck());
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (WaitFor.Wait w : a.waits()) {
            if (!of.contains(w.call().rank())) continue;
            for (int r : w.on()) if (!stuck.contains(r)) out.add(r);
        }
        return List.copyOf(out);
    }

    /**
     * {@code barrier on MPI_COMM_WORLD}, {@code send on MPI_COMM_WORLD peer 3 tag 7},
     * {@code recv on workers peer any tag any} (any source, any tag),
     * {@code sendRecv on MPI_COMM_WORLD to 1 tag 7 from 3 tag 8}.
     */
    public static String callText(InFlightCall c) {
        String method = c.call().substring(c.call().lastIndexOf('.') + 1);
        String on = c.receiver() == null ? "" : " on " + c.receiver();
        String peer = c.anySource() ? " any" : c.peer() >= 0 ? " " + c.peer() : "";
        String tag = tagText(c.tag());
        BindingCalls calls = BindingCalls.spelling(method);
        if (calls != null && calls.isSendRecv(method)) {
            // a send-receive: the halves it knows
            return method + on + (c.sendTo() >= 0 ? " to " + c.sendTo() + tagText(c.sendTag()) : "")
                    + (peer.isEmpty() ? "" : " from" + peer + tag);
        }
        return method + on + (peer.isEmpty() ? "" : " peer" + peer) + tag;
    }

    private static String tagText(int tag) {
        return tag == InFlightCall.ANY_TAG ? " tag any" : tag >= 0 ? " tag " + tag : "";
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
                        .append(' ').append(HandleIds.label(ps.get(i).requestId()));
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
        out.add(statusLine(m));
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

    /** A line of at most 80 columns, cut with {@code ...}. */
    public static String cut(String s) {
        return cut(s, W);
    }

    /** {@code 0 -> 1 -> 0}: a wait-for cycle, its first rank repeated last. */
    public static String cycleText(List<Integer> cycle) {
        return cycle.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" -> "));
    }

    private String paint(String s, String code) {
        return color && !code.isEmpty() ? code + s + RESET : s;
    }
}
