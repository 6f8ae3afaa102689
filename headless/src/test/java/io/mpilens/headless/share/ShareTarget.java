package io.mpilens.headless.share;

/** A plain JVM for the share's tests: calls {@code tick} and {@code tock} every 20 ms, for breakpoints. */
public final class ShareTarget {
    static volatile long ticks;
    static volatile long tocks;

    private ShareTarget() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("READY");
        System.out.flush();
        while (true) {
            tick();
            tock();
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
