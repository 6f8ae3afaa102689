package io.mpilens.headless.testing;

/** A target with known statics, fields and arrays for reader tests. Runs until killed. */
public final class FieldsTarget {
    public static final int BIG_OBJECTS = 200_000;
    public static final String[] VALUES = {"v0", "v1", "v2", "v3", "v4", "v5", "v6"};

    static int answer = 42;
    static long large = 1L << 40;
    static String greeting = "h\u00e9llo \"mpi\"";
    static Object nothing;
    static volatile long ticks;
    static final Holder HOLDER = new Holder();

    static final class Holder {
        int count = 7;
        long total = -3L;
        byte small = 5;
        boolean flag = true;
        char letter = 'x';
        String label = "holder";
        int[] ints = new int[100_000];
        long[] longs = new long[300_000];
        byte[] bytes = new byte[1_000];
        /** Element i is VALUES[i % 7], except every 1000th, which is null. */
        Object[] objects = new Object[BIG_OBJECTS];

        Holder() {
            for (int i = 0; i < ints.length; i++) ints[i] = i * 2;
            for (int i = 0; i < longs.length; i++) longs[i] = i * 3L - 1;
            for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) i;
            for (int i = 0; i < objects.length; i++) objects[i] = i % 1000 == 0 ? null : VALUES[i % 7];
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (HOLDER.objects.length != BIG_OBJECTS) throw new AssertionError();
        System.out.println(TargetJvm.READY);
        System.out.flush();
        while (true) {
            ticks++;
            Thread.sleep(1);
        }
    }
}
