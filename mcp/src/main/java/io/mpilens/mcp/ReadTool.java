package io.mpilens.mcp;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * One tool of {@code mpilens mcp}: a read command of the CLI. Its arguments become that command's
 * options ({@link #commandLine}), and its answer is what the command prints with {@code --json}.
 *
 * @param outputSchema   resource (under this package) holding the JSON Schema of the answer (the command's
 *                       document: mpilens/1, mpilens-ft/1 or mpilens-leaks/2, docs/json-schema.md)
 * @param inputSchema    JSON Schema of the arguments
 * @param commandLine    the mpilens command line for a call's arguments
 */
record ReadTool(String name, String title, String description, String outputSchema,
                Map<String, Object> inputSchema, Function<Arguments, List<String>> commandLine) {

    static List<ReadTool> all() {
        return List.of(
                new ReadTool("jobs", "MPI jobs", "The jobs whose ranks registered (mpilens agent loaded, MPI initialised):"
                        + " each job's id, its ranks with pid, host, JDWP address, liveness, and how the job ended. The"
                        + " same as 'mpilens jobs --json' (schema mpilens-ft/1). Give a job's id to the other tools.",
                        "jobs.schema.json", object(props(HOSTS)), ReadTool::jobs),
                new ReadTool("handles", "MPI handles", "The MPI handles (communicators, requests, datatypes, groups,"
                        + " windows, ...) of every rank, orphans included: a live job (job, or addresses of rank JVMs)"
                        + " or heap dumps (dumps). Filters: kinds, states, orphansOnly. The same as 'mpilens handles"
                        + " --json' ('mpilens dump --json' for dumps), schema mpilens/1. Reads only; suspends nothing"
                        + " unless suspend is true.",
                        "snapshot.schema.json", object(props(TARGET, DUMPS, FILTERS, HANDLES_LIVE, HOSTS)),
                        ReadTool::handles),
                new ReadTool("cominfo", "Communicators and their fault-tolerance state", "Every communicator of the"
                        + " job with its members and state (OK, DETECTED, RECOVERING, RECOVERED, FAILED), the ranks'"
                        + " states and requests pending on failed peers: 'mpilens cominfo --json' (mpilens-ft/1)."
                        + " A live job or the ranks' heap dumps.",
                        "cominfo.schema.json", object(props(TARGET, DUMPS, TIMEOUT, HOSTS)),
                        t -> fault("cominfo", t, true)),
                new ReadTool("hostinfo", "Hosts of the job", "The job's hosts (UP, PARTIAL, DOWN, UNKNOWN) with their"
                        + " launcher daemons and ranks: 'mpilens hostinfo --json' (mpilens-ft/1).",
                        "hostinfo.schema.json", object(props(TARGET, DUMPS, TIMEOUT, HOSTS)),
                        t -> fault("hostinfo", t, true)),
                new ReadTool("calls", "MPI calls in progress, stuck ranks", "The MPI call each thread of each rank is"
                        + " inside (from its stack frames), calls that can never complete, and a wait-for analysis:"
                        + " which ranks are stuck, on what, a possible deadlock; with confirmSeconds two looks that"
                        + " confirm it. 'mpilens calls --json' (mpilens-ft/1). Each thread is suspended only while"
                        + " its own frames are read (the whole VM with suspend).",
                        "calls.schema.json", object(props(TARGET, TIMEOUT, CALLS, HOSTS)), ReadTool::calls),
                new ReadTool("leaks", "Leaked MPI handles", "Handles the program lost track of, grouped by creation site:"
                        + " wrappers garbage-collected without free(), and for ended ranks requests never completed and"
                        + " handles still active. Live (each rank suspended while read, as 'mpilens leaks' does) or"
                        + " from heap dumps. 'mpilens leaks --json' (mpilens-leaks/2).",
                        "leaks.schema.json", object(props(TARGET, DUMPS, TIMEOUT, HOSTS)),
                        ReadTool::leaks),
                new ReadTool("dump", "MPI handles from heap dumps", "The MPI handles recorded in heap dumps (.hprof,"
                        + " .hprof.gz), one per rank JVM, orphans included: 'mpilens dump --json' (mpilens/1).",
                        "snapshot.schema.json", object(props(FILES, FILTERS, AGENTLESS), "files"),
                        ReadTool::dump));
    }

    // ------------------------------------------------------------------ arguments

    private static final Map<String, Object> TARGET = props(
            "job", string("A job id listed by the jobs tool: all its ranks ('mpilens --job ID')."),
            "addresses", strings("JDWP addresses HOST:PORT of the rank JVMs, instead of a job ('--attach')."));
    private static final Map<String, Object> DUMPS = props(
            "dumps", strings("Heap dump files of the job's rank JVMs (.hprof, .hprof.gz), one each, instead of a live job."));
    private static final Map<String, Object> FILES = props(
            "files", strings("Heap dump files (.hprof, .hprof.gz), one per rank JVM."));
    private static final Map<String, Object> TIMEOUT = props(
            "timeoutSeconds", number("Per rank: time to connect, and again to read (default 5)."));
    private static final Map<String, Object> HOSTS = props(
            "hosts", strings("Also the job's ranks on these hosts, read by a collector started there ('--hosts'); [\"none\"]: this host only."),
            "via", Map.of("type", "string", "enum", List.of("ssh", "mpirun", "mpj"),
                    "description", "How the collectors on the hosts are started ('--via'; default ssh)."));
    private static final Map<String, Object> AGENTLESS = props(
            "agentless", bool("Read the MPI binding's own objects even where the agent's registry is (reduced information)."));
    private static final Map<String, Object> FILTERS = props(
            "kinds", enums(Arrays.stream(HandleKind.values()).map(Enum::name).toList(), "Only handles of these kinds ('--kind')."),
            "states", enums(Arrays.stream(Lifecycle.values()).map(Enum::name).toList(),
                    "Only handles in these states ('--state'): FREED are the orphans, RELEASED the recent history."),
            "orphansOnly", bool("Only orphans: handles freed by the application but still held (the same as states [\"FREED\"])."));
    private static final Map<String, Object> HANDLES_LIVE = props(
            "ranks", string("Only these COMM_WORLD ranks, e.g. \"0,3-5\" ('--ranks')."),
            "suspend", bool("Suspend each JVM while reading it, then resume it (default: the ranks keep running)."),
            "timeoutSeconds", number("Per rank: time to connect, and again to read (default 5)."),
            "agentless", bool("Read the MPI binding's own objects even where the agent runs (reduced information)."));
    private static final Map<String, Object> CALLS = props(
            "confirmSeconds", number("Look twice, this many seconds apart: stuck ranks whose agents counted no blocking"
                    + " call returning in between are a confirmed DEADLOCK ('--confirm'; default one look)."),
            "suspend", bool("Suspend each rank's whole VM while reading it (default: each thread only while its frames are read)."));

    private static List<String> jobs(Arguments a) {
        a.onlyThese(Set.of("hosts", "via"));
        List<String> cmd = new ArrayList<>(List.of("jobs", "--json"));
        hosts(a, cmd);
        return cmd;
    }

    private static List<String> handles(Arguments a) {
        a.onlyThese(keys(TARGET, DUMPS, FILTERS, HANDLES_LIVE, HOSTS));
        if (a.has("dumps")) {
            for (String live : List.of("job", "addresses", "ranks", "suspend", "timeoutSeconds", "hosts", "via")) {
                if (a.has(live)) {
                    throw new Arguments.Invalid("handles: give either a live job (job, addresses) or heap dumps (dumps),"
                            + " not both; '" + live + "' is for a live job");
                }
            }
            List<String> cmd = new ArrayList<>(List.of("dump", "--json"));
            filters(a, cmd);
            if (a.flag("agentless")) cmd.add("--agentless");
            cmd.add("--");
            cmd.addAll(a.strings("dumps"));
            return cmd;
        }
        List<String> cmd = new ArrayList<>(List.of("handles", "--json"));
        target(a, cmd);
        String ranks = a.string("ranks");
        if (ranks != null) cmd.add("--ranks=" + ranks);
        filters(a, cmd);
        if (a.flag("suspend")) cmd.add("--suspend");
        if (a.flag("agentless")) cmd.add("--agentless");
        timeout(a, cmd);
        hosts(a, cmd);
        return cmd;
    }

    private static List<String> fault(String command, Arguments a, boolean dumps) {
        a.onlyThese(keys(TARGET, dumps ? DUMPS : Map.of(), TIMEOUT, HOSTS));
        List<String> cmd = new ArrayList<>(List.of(command, "--json"));
        target(a, cmd);
        timeout(a, cmd);
        hosts(a, cmd);
        dumps(a, cmd);
        return cmd;
    }

    private static List<String> calls(Arguments a) {
        a.onlyThese(keys(TARGET, TIMEOUT, CALLS, HOSTS));
        List<String> cmd = new ArrayList<>(List.of("calls", "--json"));
        target(a, cmd);
        Double confirm = a.number("confirmSeconds");
        if (confirm != null) cmd.add("--confirm=" + confirm);
        if (a.flag("suspend")) cmd.add("--suspend");
        timeout(a, cmd);
        hosts(a, cmd);
        return cmd;
    }

    private static List<String> leaks(Arguments a) {
        return fault("leaks", a, true);
    }

    private static List<String> dump(Arguments a) {
        a.onlyThese(keys(FILES, FILTERS, AGENTLESS));
        List<String> files = a.strings("files");
        if (files == null) throw new Arguments.Invalid("dump: give files, the heap dumps to read (one per rank JVM)");
        List<String> cmd = new ArrayList<>(List.of("dump", "--json"));
        filters(a, cmd);
        if (a.flag("agentless")) cmd.add("--agentless");
        cmd.add("--");
        cmd.addAll(files);
        return cmd;
    }

    // '--option=value' throughout: a value that starts with '-' is then never taken for an option
    private static void target(Arguments a, List<String> cmd) {
        String job = a.string("job");
        if (job != null) cmd.add("--job=" + job);
        List<String> addresses = a.strings("addresses");
        if (addresses != null) cmd.add("--attach=" + String.join(",", addresses));
    }

    private static void dumps(Arguments a, List<String> cmd) {
        List<String> dumps = a.strings("dumps");
        if (dumps == null) return;
        cmd.add("--");
        cmd.addAll(dumps);
    }

    private static void timeout(Arguments a, List<String> cmd) {
        Double t = a.number("timeoutSeconds");
        if (t != null) cmd.add("--timeout=" + t);
    }

    private static void hosts(Arguments a, List<String> cmd) {
        List<String> hosts = a.strings("hosts");
        if (hosts != null) cmd.add("--hosts=" + String.join(",", hosts));
        String via = a.string("via");
        if (via != null) cmd.add("--via=" + via);
    }

    private static void filters(Arguments a, List<String> cmd) {
        List<String> kinds = a.strings("kinds");
        if (kinds != null) cmd.add("--kind=" + String.join(",", kinds));
        List<String> states = a.strings("states");
        if (a.flag("orphansOnly")) {
            if (states != null) throw new Arguments.Invalid("give orphansOnly or states, not both (orphans are state FREED)");
            states = List.of(Lifecycle.FREED.name());
        }
        if (states != null) cmd.add("--state=" + String.join(",", states));
    }

    // ------------------------------------------------------------------ JSON Schema pieces

    @SafeVarargs
    private static Set<String> keys(Map<String, Object>... groups) {
        Set<String> out = new LinkedHashSet<>();
        for (Map<String, Object> g : groups) out.addAll(g.keySet());
        return out;
    }

    private static Map<String, Object> props(Object... nameThenSchema) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenSchema.length; i += 2) m.put((String) nameThenSchema[i], nameThenSchema[i + 1]);
        return m;
    }

    @SafeVarargs
    private static Map<String, Object> props(Map<String, Object>... groups) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map<String, Object> g : groups) m.putAll(g);
        return m;
    }

    private static Map<String, Object> object(Map<String, Object> properties, String... required) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "object");
        m.put("properties", properties);
        if (required.length > 0) m.put("required", List.of(required));
        m.put("additionalProperties", false);
        return m;
    }

    private static Map<String, Object> string(String description) {
        return Map.of("type", "string", "description", description);
    }

    private static Map<String, Object> strings(String description) {
        return Map.of("type", "array", "items", Map.of("type", "string"), "minItems", 1, "description", description);
    }

    private static Map<String, Object> number(String description) {
        return Map.of("type", "number", "exclusiveMinimum", 0, "description", description);
    }

    private static Map<String, Object> bool(String description) {
        return Map.of("type", "boolean", "description", description);
    }

    private static Map<String, Object> enums(List<String> values, String description) {
        return Map.of("type", "array", "items", Map.of("type", "string", "enum", values), "minItems", 1,
                "description", description);
    }
}
