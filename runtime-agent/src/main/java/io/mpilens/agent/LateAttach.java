package io.mpilens.agent;

/** {@code java -jar mpilens-agent.jar attach PID}: loads this jar into a running JVM. */
final class LateAttach {
    private LateAttach() {
    }

    static void attach(String pid, String agentJar, String options) throws Exception {
        // through reflection: jdk.attach is a JDK module, and the agent compiles for release 11
        Class<?> vmClass = Class.forName("com.sun.tools.attach.VirtualMachine");
        Object vm = vmClass.getMethod("attach", String.class).invoke(null, pid);
        try {
            vmClass.getMethod("loadAgent", String.class, String.class).invoke(vm, agentJar, options);
        } finally {
            vmClass.getMethod("detach").invoke(vm);
        }
    }
}
