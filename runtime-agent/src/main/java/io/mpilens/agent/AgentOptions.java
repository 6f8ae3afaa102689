package io.mpilens.agent;

/** Options after {@code -javaagent:mpilens-agent.jar=}, comma-separated {@code key=value}. */
public final class AgentOptions {
    boolean requestStacks;
    /** Intercept request creation and completion (the per-message cost); {@code requests=false} turns it off. */
    public boolean requests = true;
    /**
     * Requests recorded in their wrappers and the request ring instead of the request tables, where
     * the binding allows it (Open MPI, MPJ Express); {@code requestsInWrappers=false} keeps them in the tables.
     */
    boolean requestsInWrappers = true;
    boolean historyOfRequests;
    public boolean verbose;
    String failOn;
    /** Write a heap dump when a thread dies of an uncaught exception while MPI is in use (see ErrorDumps). */
    boolean dumpOnError;
    String dumpDir;
    /** Keep the woven binding classes on disk for the next JVM (see WovenCache); {@code wovenCache=false} turns it off. */
    boolean wovenCache = true;
    String wovenCacheDir;
    /** Print the JDWP listener's address once at start-up (mpilens's launcher, whose JDWP agent is quiet). */
    boolean jdwpLine;

    static AgentOptions parse(String text) {
        AgentOptions o = new AgentOptions();
        if (text == null || text.isBlank()) return o;
        for (String part : text.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) continue;
            int eq = p.indexOf('=');
            String key = eq < 0 ? p : p.substring(0, eq);
            String value = eq < 0 ? "true" : p.substring(eq + 1);
            switch (key) {
                case "requestStacks": o.requestStacks = Boolean.parseBoolean(value); break;
                case "requests": o.requests = Boolean.parseBoolean(value); break;
                case "requestsInWrappers": o.requestsInWrappers = Boolean.parseBoolean(value); break;
                case "requestHistory": o.historyOfRequests = Boolean.parseBoolean(value); break;
                case "verbose": o.verbose = Boolean.parseBoolean(value); break;
                case "failOn": o.failOn = value; break;
                case "dumpOnError": o.dumpOnError = Boolean.parseBoolean(value); break;
                case "dumpDir": o.dumpDir = value; break;
                case "wovenCache": o.wovenCache = Boolean.parseBoolean(value); break;
                case "wovenCacheDir": o.wovenCacheDir = value; break;
                case "jdwpLine": o.jdwpLine = Boolean.parseBoolean(value); break;
                default:
                    System.err.println("mpilens: ignoring unknown agent option '" + key
                            + "' (known: requests, requestsInWrappers, requestStacks, requestHistory, verbose, failOn, dumpOnError, dumpDir,"
                            + " wovenCache, wovenCacheDir, jdwpLine)");
            }
        }
        return o;
    }
}
