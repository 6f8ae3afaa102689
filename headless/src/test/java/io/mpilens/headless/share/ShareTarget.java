package io.mpilens.headless.share;

/**
 * A plain JVM for the share's tests: calls {@code tick} and {@code tock} every 20 ms, for
 * breakpoints; collects garbage each time once a debugger sets {@code collect}, for pins.
 */
public final class ShareTarget {
    static volatile long ticks;
    static volatile long tocks;
    /** Objects only these fields hold: a debugger pins them, then sets the fields to null. */
    static Object pinnedByOne = new Object();
    static Object pinnedByTwo = new Object();
    static Object pinnedThenDisposed = new Object();
    static volatile boolean collect;
    static volatile long collections;

    private ShareTarget() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("READY");
        System.out.flush();
        while (true) {
            tick();
            tock();
            if (collect) {
                System.gc();
                collections++;
            }
            Thread.sleep(20);
        }
    }

    static void tick() {
        ticks++;
    }

    static void tock() {
        tocks++;
    }
}
