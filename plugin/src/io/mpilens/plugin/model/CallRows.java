package io.mpilens.plugin.model;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.HandleIds;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.text.RankRanges;
import io.mpilens.headless.text.WaitForPicture;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The table of the MPI Calls view: one row per rank and thread inside an MPI call (call,
 * communicator or request it is on, peer, tag, since when this view has seen it there, verdict),
 * then the requests pending on a FAILED peer. A row's colour is its verdict's, as in the picture.
 */
public final class CallRows {
    public enum Column {
        RANK("Rank", 50), THREAD("Thread", 110), CALL("Call", 90), ON("On", 150), PEER("Peer", 70), TAG("Tag", 60),
        SINCE("Seen since", 90), VERDICT("Verdict", 260);

        private final String title;
        private final int width;

        Column(String title, int width) {
            this.title = title;
            this.width = width;
        }

        public String title() {
            return title;
        }

        public int width() {
            return width;
        }
    }

    /** One row: its cells by {@link Column} order, its colour ({@code #rrggbb}, null for the default). */
    public record Row(int rank, List<String> cells, String colour) {
        public String cell(Column c) {
            return cells.get(c.ordinal());
        }
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    private CallRows() {
    }

    /**
     * What identifies a thread's stay in one call across reads: the same thread in the same call on
     * the same handle with the same peer, tag and requests.
     */
    public static String stay(InFlightCall c) {
        return c.rank() + "|" + c.thread() + "|" + c.call() + "|" + c.handleId() + "|" + c.peer() + "|" + c.tag() + "|"
                + c.anySource() + "|" + c.requests();
    }

    /**
     * @param firstSeen per {@link #stay}, when this view first read the thread in that call; the
     *                  rows' "seen since" (absent: the model's time, this read)
     */
    public static List<Row> of(JobModel m, List<InFlightCall> calls, WaitFor.Analysis a, WaitFor.Looks looks,
                               Map<String, Instant> firstSeen) {
        List<InFlightCall> sorted = new ArrayList<>(calls);
        sorted.sort(Comparator.comparingInt(InFlightCall::rank).thenComparing(InFlightCall::thread));
        List<Row> out = new ArrayList<>();
        for (InFlightCall c : sorted) {
            WaitFor.Verdict v = WaitFor.verdict(c.rank(), a, looks);
            String verdict = c.neverCompletes() ? "NEVER COMPLETES: FAILED [" + RankRanges.format(c.failedPeers(), ", ") + "]"
                    : v == WaitFor.Verdict.NONE ? "" : WaitForPicture.label(v);
            String colour = c.neverCompletes() ? WaitForPicture.colour(WaitFor.Verdict.NEVER_COMPLETES)
                    : v == WaitFor.Verdict.NONE ? null : WaitForPicture.colour(v);
            Instant since = firstSeen.getOrDefault(stay(c), m.at());
            out.add(new Row(c.rank(), List.of(Integer.toString(c.rank()), c.thread(), method(c),
                    c.receiver() == null ? "" : c.receiver(), peer(c), tag(c), TIME.format(since), verdict), colour));
        }
        for (PendingOnFailedPeer p : m.pendingOnFailed()) {
            out.add(new Row(p.rank(), List.of(Integer.toString(p.rank()), "(pending request)",
                    (p.call() == null ? "request" : p.call()) + " " + HandleIds.label(p.requestId()), p.communicatorLabel(),
                    Integer.toString(p.peer()), p.tag() >= 0 ? Integer.toString(p.tag()) : "", "",
                    "NEVER COMPLETES: FAILED [" + p.peer() + "]"), WaitForPicture.colour(WaitFor.Verdict.NEVER_COMPLETES)));
        }
        return out;
    }

    /** Keeps the first time each call now on screen was seen, and forgets calls left since. */
    public static void remember(Map<String, Instant> firstSeen, List<InFlightCall> calls, Instant now) {
        Map<String, Instant> kept = new HashMap<>();
        for (InFlightCall c : calls) kept.put(stay(c), firstSeen.getOrDefault(stay(c), now));
        firstSeen.clear();
        firstSeen.putAll(kept);
    }

    private static String method(InFlightCall c) {
        return c.call().substring(c.call().lastIndexOf('.') + 1);
    }

    /** {@code 1}, {@code any}, or a send-receive's {@code to 1, from 3}. */
    private static String peer(InFlightCall c) {
        String from = c.anySource() ? "any" : c.peer() >= 0 ? Integer.toString(c.peer()) : "";
        BindingCalls calls = BindingCalls.spelling(method(c));
        if (calls != null && calls.isSendRecv(method(c)) && c.sendTo() >= 0) {
            return "to " + c.sendTo() + (from.isEmpty() ? "" : ", from " + from);
        }
        return from;
    }

    private static String tag(InFlightCall c) {
        String recv = tagText(c.tag());
        BindingCalls calls = BindingCalls.spelling(method(c));
        if (calls != null && calls.isSendRecv(method(c)) && c.sendTo() >= 0) {
            return tagText(c.sendTag()) + (recv.isEmpty() ? "" : ", " + recv);
        }
        return recv;
    }

    private static String tagText(int tag) {
        return tag == InFlightCall.ANY_TAG ? "any" : tag >= 0 ? Integer.toString(tag) : "";
    }
}
