package io.mpilens.agent.boot;

import java.lang.instrument.Instrumentation;

/**
 * The {@code -javaagent} entry point: defines the agent's classes in the boot loader
 * ({@link BootPack}), then hands over to {@code io.mpilens.agent.MpiLensAgent}. Names no other
 * class of the agent, so none of them is loaded by the system class loader before the pack is
 * defined. Never throws into the application.
 */
public final class Premain {
    static final String AGENT = "io.mpilens.agent.MpiLensAgent";

    private Premain() {
    }

    public static void premain(String args, Instrumentation inst) {
        try {
            StringBuilder why = new StringBuilder();
            BootPack.Outcome outcome = BootPack.defineAll(inst, Premain.class.getProtectionDomain(), why);
            if (outcome == BootPack.Outcome.PARTIAL) {
                System.err.println("mpilens: agent not installed, the application runs without it: " + why);
                return;
            }
            // ALL: the boot loader has it; NONE: the system class loader finds it in the agent jar
            Class<?> agent = Class.forName(AGENT, true, outcome == BootPack.Outcome.ALL ? null : Premain.class.getClassLoader());
            agent.getMethod("premain", String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (Throwable t) {
            System.err.println("mpilens: agent not installed, the application runs without it: " + t);
        }
    }
}
