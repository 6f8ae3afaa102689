package io.mpilens.headless.text;

import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Agentless readings as text: per process a header, the reduced-information banner (what is
 * missing, why, and how to get it), then one line per binding object, at most
 * {@value HandleTable#WIDTH} columns.
 */
public final class AgentlessTable {
    private static final String ROW = "%-5s %-10s %-16s %-18s %-5s %s";
    private static final String YELLOW = "\u001b[33m";
    private static final String RESET = "\u001b[0m";
    private static final String[] BANNER = {
        "  REDUCED INFORMATION: no mpilens agent ran in this JVM, so this is what the",
        "  MPI binding's own objects hold. Not known without the agent: lifecycle,",
        "  orphans, reference counts, released handles, leaks, names set by the",
        "  program, creation sites, MPI errors (only the agent records them). For the",
        "  full picture start the ranks with -javaagent:mpilens-agent.jar, or attach",
        "  it to a running rank: java -jar mpilens-agent.jar attach PID."};

    private final boolean color;

    public AgentlessTable(boolean color) {
        this.color = color;
    }

    public List<String> lines(List<AgentlessProcess> processes) {
        List<String> out = new ArrayList<>();
        for (AgentlessProcess p : processes) {
            if (!out.isEmpty()) out.add("");
            out.addAll(lines(p));
        }
        return out;
    }

    public List<String> lines(AgentlessProcess p) {
        List<String> out = new ArrayList<>();
        String rank = p.rank() < 0 ? "rank ?" : "rank " + p.rank() + (p.worldSize() < 0 ? "" : "/" + p.worldSize());
        String from = p.rank() >= 0 && p.rankFrom() != null && !p.rankFrom().equals("COMM_WORLD")
                ? " (from " + p.rankFrom() + ")" : "";
        out.add(fit(rank + from + "  " + p.binding() + "  " + p.mpiState() + "  NO AGENT  @" + p.source()));
        for (String b : BANNER) out.add(color ? YELLOW + b + RESET : b);
        if (p.rank() < 0 && "openmpi".equals(p.binding())) {
            out.add(fit("  (Open MPI keeps ranks in C; its environment was not in the Java heap either)"));
        }
        if (p.objects().isEmpty()) {
            out.add("  (no objects of the binding)");
            return out;
        }
        out.add(String.format(ROW, "KIND", "CLASS", "NAME", "C HANDLE/CONTEXT", "RANK", "MEMBERS, FIELDS")
                .stripTrailing());
        for (BindingObject o : p.objects()) out.addAll(row(o));
        if (p.notRead() > 0) out.add(fit("  + " + p.notRead() + " more objects not read (limit reached)"));
        return out;
    }

    /** One line, or two when members and fields do not fit beside the rest. */
    private static List<String> row(BindingObject o) {
        String handle;
        if (o.cHandle() != null) {
            handle = "0x" + Long.toHexString(o.cHandle()) + (o.nullHandle() ? " null" : "");
        } else if (!o.contexts().isEmpty()) {
            handle = "ctx " + join(o.contexts(), "/");
        } else {
            handle = "";
        }
        String rank = o.rank() < 0 ? "" : o.size() < 0 ? String.valueOf(o.rank()) : o.rank() + "/" + o.size();
        StringBuilder rest = new StringBuilder();
        if (!o.members().isEmpty()) rest.append("members ").append(join(o.members(), ","));
        for (Map.Entry<String, String> d : o.details().entrySet()) {
            rest.append(rest.length() == 0 ? "" : " ").append(d.getKey()).append(' ').append(d.getValue());
        }
        String name = o.name() == null ? "" : o.name();
        String line = String.format(ROW, HandleTable.shortKind(o.kind()), clip(o.type(), 10), clip(name, 16),
                clip(handle, 18), rank, rest).stripTrailing();
        if (line.length() <= HandleTable.WIDTH) return List.of(line);
        return List.of(String.format(ROW, HandleTable.shortKind(o.kind()), clip(o.type(), 10), clip(name, 16),
                clip(handle, 18), rank, "").stripTrailing(), fit("      " + rest));
    }

    private static String join(List<Integer> values, String sep) {
        StringBuilder b = new StringBuilder();
        for (int v : values) b.append(b.length() == 0 ? "" : sep).append(v);
        return b.toString();
    }

    private static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }

    private static String fit(String s) {
        return clip(s, HandleTable.WIDTH);
    }
}
