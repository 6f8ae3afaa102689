package io.mpilens.mcp;

import io.mpilens.headless.text.RankRanges;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The short text beside a tool's JSON answer: what a person (or a model) reads first. Only counts
 * and names taken from the answer itself; the answer is the JSON.
 */
final class Summary {
    private Summary() {
    }

    static String of(String tool, Map<String, Object> json) {
        return switch (tool) {
            case "jobs" -> jobs(json);
            case "handles", "dump" -> handles(json);
            case "cominfo" -> cominfo(json);
            case "hostinfo" -> hostinfo(json);
            case "calls" -> calls(json);
            case "leaks" -> leaks(json);
            default -> tool;
        };
    }

    /** Whether an answer holds nothing read: every rank or dump failed (then the call is an error). */
    static boolean nothingRead(Map<String, Object> json) {
        Object schema = json.get("schema");
        if ("mpilens-leaks/2".equals(schema)) return number(json, "ranksEnded") + number(json, "ranksRunning") == 0;
        return list(json, "processes").isEmpty() && list(json, "agentless").isEmpty() && !json.containsKey("jobs");
    }

    private static String jobs(Map<String, Object> json) {
        List<Map<String, Object>> jobs = maps(json, "jobs");
        if (jobs.isEmpty()) return "no jobs registered (is the mpilens agent loaded into the ranks?)";
        List<String> parts = new ArrayList<>();
        for (Map<String, Object> j : jobs) {
            Object end = j.get("end") instanceof Map<?, ?> e ? e.get("state") : null;
            parts.add(j.get("id") + " (" + maps(j, "ranks").size() + " ranks" + (end == null ? "" : ", " + end) + ")");
        }
        return jobs.size() + " job" + (jobs.size() == 1 ? "" : "s") + ": " + String.join("; ", parts);
    }

    private static String handles(Map<String, Object> json) {
        List<Map<String, Object>> processes = maps(json, "processes");
        List<Integer> ranks = new ArrayList<>();
        int handles = 0, orphans = 0, leaked = 0;
        for (Map<String, Object> p : processes) {
            if (p.get("rank") instanceof Number n) ranks.add(n.intValue());
            for (Map<String, Object> h : maps(p, "handles")) {
                handles++;
                if ("FREED".equals(h.get("state"))) orphans++;
                if (Boolean.TRUE.equals(h.get("leaked"))) leaked++;
            }
        }
        StringBuilder s = new StringBuilder();
        s.append(processes.size()).append(" process").append(processes.size() == 1 ? "" : "es");
        if (!ranks.isEmpty()) s.append(" (rank").append(ranks.size() == 1 ? " " : "s ").append(RankRanges.format(ranks, ",")).append(')');
        s.append(": ").append(handles).append(" handle").append(handles == 1 ? "" : "s").append(", ").append(orphans)
                .append(orphans == 1 ? " orphan" : " orphans").append(" (freed, still held)");
        if (leaked > 0) s.append(", ").append(leaked).append(" leaked (collected without free)");
        int agentless = list(json, "agentless").size();
        if (agentless > 0) s.append("; ").append(agentless).append(" read without the agent (REDUCED INFORMATION)");
        return s.append(errors(json)).toString();
    }

    private static String cominfo(Map<String, Object> json) {
        List<String> comms = new ArrayList<>();
        for (Map<String, Object> c : maps(json, "communicators")) comms.add(c.get("label") + " " + c.get("state"));
        return "job " + json.get("job") + ": " + ranks(json) + "; " + comms.size() + " communicator"
                + (comms.size() == 1 ? "" : "s") + (comms.isEmpty() ? "" : ": " + String.join(", ", comms))
                + pending(json);
    }

    private static String hostinfo(Map<String, Object> json) {
        List<String> hosts = new ArrayList<>();
        for (Map<String, Object> h : maps(json, "hosts")) hosts.add(h.get("host") + " " + h.get("state"));
        return "job " + json.get("job") + ": " + ranks(json) + "; hosts: " + String.join(", ", hosts);
    }

    private static String calls(Map<String, Object> json) {
        List<Map<String, Object>> calls = maps(json, "calls");
        long never = calls.stream().filter(c -> Boolean.TRUE.equals(c.get("neverCompletes"))).count();
        StringBuilder s = new StringBuilder("job " + json.get("job") + ": " + ranks(json) + "; " + calls.size()
                + " thread" + (calls.size() == 1 ? "" : "s") + " inside MPI calls");
        if (never > 0) s.append(", ").append(never).append(" that can never complete (a FAILED peer or member)");
        if (json.get("waitFor") instanceof Map<?, ?> w) {
            @SuppressWarnings("unchecked") Map<String, Object> waitFor = (Map<String, Object>) w;
            appendRanks(s, "stuck", waitFor, "stuck");
            appendRanks(s, number(waitFor, "looks") > 1 ? "possible deadlock (not confirmed)" : "possible deadlock", waitFor, "deadlocked");
            appendRanks(s, "DEADLOCK confirmed", waitFor, "confirmed");
            appendRanks(s, "waiting for a FAILED rank", waitFor, "behindFailed");
        }
        return s.append(pending(json)).toString();
    }

    private static String leaks(Map<String, Object> json) {
        List<Map<String, Object>> groups = maps(json, "groups");
        StringBuilder s = new StringBuilder(number(json, "total") + " handles lost track of, in " + groups.size()
                + " group" + (groups.size() == 1 ? "" : "s") + " (" + number(json, "ranksEnded") + " ranks ended, "
                + number(json, "ranksRunning") + " running)");
        for (Map<String, Object> g : groups.subList(0, Math.min(3, groups.size()))) {
            s.append("; ").append(g.get("count")).append(' ').append(g.get("problem")).append(' ').append(g.get("kind"))
                    .append(" at ").append(g.get("site"));
        }
        return s.append(errors(json)).toString();
    }

    private static String ranks(Map<String, Object> json) {
        Map<String, List<Integer>> byState = new LinkedHashMap<>();
        for (Map<String, Object> p : maps(json, "processes")) {
            if (p.get("rank") instanceof Number n) byState.computeIfAbsent(String.valueOf(p.get("state")), k -> new ArrayList<>()).add(n.intValue());
        }
        List<String> parts = new ArrayList<>();
        byState.forEach((state, ranks) -> parts.add(state + " " + RankRanges.format(ranks, ",")));
        return "ranks " + (parts.isEmpty() ? "none read" : String.join(", ", parts));
    }

    private static String pending(Map<String, Object> json) {
        int n = maps(json, "pendingOnFailed").size();
        return n == 0 ? "" : "; " + n + " request" + (n == 1 ? "" : "s") + " pending on a FAILED peer";
    }

    private static String errors(Map<String, Object> json) {
        List<Map<String, Object>> errors = maps(json, "errors");
        return errors.isEmpty() ? "" : "; " + errors.size() + " could not be read";
    }

    private static void appendRanks(StringBuilder s, String what, Map<String, Object> json, String key) {
        List<Integer> ranks = new ArrayList<>();
        for (Object o : list(json, key)) if (o instanceof Number n) ranks.add(n.intValue());
        if (!ranks.isEmpty()) s.append("; ").append(what).append(": ranks ").append(RankRanges.format(ranks, ","));
    }

    private static long number(Map<String, Object> json, String key) {
        return json.get(key) instanceof Number n ? n.longValue() : 0;
    }

    private static List<?> list(Map<String, Object> json, String key) {
        return json.get(key) instanceof List<?> l ? l : List.of();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> maps(Map<String, Object> json, String key) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : list(json, key)) if (o instanceof Map<?, ?> m) out.add((Map<String, Object>) m);
        return out;
    }
}
