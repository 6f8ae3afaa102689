package io.mpilens.bench;

/** The plain JVM {@link ShareBench} asks thread names of: prints {@value #READY}, then sleeps until killed. */
public final class ShareBenchTarget {
    static final String READY = "SHARE-TARGET-READY";

    private ShareBenchTarget() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(READY);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
