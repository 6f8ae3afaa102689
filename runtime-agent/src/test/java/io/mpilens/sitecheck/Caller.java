package io.mpilens.sitecheck;

import java.util.function.Supplier;

/** Application code for {@code CreationSiteTest}: outside the agent's packages, so its frames are the application's. */
public final class Caller {
    private Caller() {
    }

    /** The creating call site: one line, whoever calls it. */
    public static String[] site(Supplier<String[]> create) {
        return create.get(); // SITE
    }

    public static String[] fromFirst(Supplier<String[]> create) {
        return site(create); // FIRST
    }

    public static String[] fromSecond(Supplier<String[]> create) {
        return site(create); // SECOND
    }

    public static String[] otherSite(Supplier<String[]> create) {
        return create.get(); // OTHER
    }

    /** {@code depth} frames of this class below a call site of its own. */
    public static String[] deep(int depth, Supplier<String[]> create) {
        return depth == 0 ? deepSite(create) : deep(depth - 1, create);
    }

    private static String[] deepSite(Supplier<String[]> create) {
        return create.get(); // DEEP
    }
}
