package io.mpilens.headless.hprof;

import io.mpilens.api.target.TargetReadException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Sequential big-endian reads over the bytes of a dump, as HPROF spells them (u1, u2, u4, u8,
 * identifiers). Every read past the end is a {@link TargetReadException} naming the offset and
 * what was being read, so a truncated dump is a message, never a hang or a stray exception.
 */
abstract class DumpInput implements AutoCloseable {
    private static final int BUFFER = 1 << 20;
    /** A whole pass reads in large slices into native memory: few calls, no second copy through the JDK's. */
    static final int PASS_BUFFER = 8 << 20;

    final String description;
    /** The bytes at {@link #bufferStart}; replaced by a new window in {@link OfMapped}: re-read it after {@link #fill}. */
    ByteBuffer buffer;
    /** Offset in the (decompressed) dump of {@code buffer}'s position 0. */
    long bufferStart;
    int idSize = 4;

    DumpInput(String description, ByteBuffer buffer) {
        this.description = description;
        this.buffer = buffer;
        buffer.limit(0);
    }

    /** Offset of the next byte. */
    final long position() {
        return bufferStart + buffer.position();
    }

    /** Makes at least {@code n} (≤ buffer size) bytes available or returns false at the end of the dump. */
    abstract boolean fill(int n);

    /** Skips {@code n} bytes, or fails naming {@code what} when the dump ends first. */
    abstract void skip(long n, String what);

    final boolean atEnd() {
        return !fill(1);
    }

    final void need(int n, String what) {
        if (!fill(n)) throw truncated(what);
    }

    final TargetReadException truncated(String what) {
        return new TargetReadException(description + " is truncated: it ends at offset " + endForMessage()
                + " while reading " + what + " (the dump was cut short; was the JVM killed while writing it?)");
    }

    /** For messages: the end offset when known, else the offset reached. */
    long endForMessage() {
        return position() + buffer.remaining();
    }

    final int u1(String what) {
        need(1, what);
        return buffer.get() & 0xff;
    }

    final int u2(String what) {
        need(2, what);
        return buffer.getShort() & 0xffff;
    }

    final int u4(String what) {
        need(4, what);
        return buffer.getInt();
    }

    final long u8(String what) {
        need(8, what);
        return buffer.getLong();
    }

    final long id(String what) {
        need(idSize, what);
        return idSize == 4 ? buffer.getInt() & 0xffffffffL : buffer.getLong();
    }

    /**
     * Checks that a skip of {@code n} bytes stays inside a file of {@code size} bytes and makes it
     * if it stays inside the buffer; false when the caller must move past the buffer itself.
     */
    final boolean skipInBuffer(long n, long size, String what) {
        if (n < 0 || position() + n > size) {
            throw new TargetReadException(description + " is damaged or truncated: " + what + " at offset "
                    + position() + " claims " + n + " bytes, but the file ends at offset " + size);
        }
        if (n > buffer.remaining()) return false;
        buffer.position(buffer.position() + (int) n);
        return true;
    }

    final void bytes(byte[] out, int off, int len, String what) {
        while (len > 0) {
            need(1, what);
            int n = Math.min(len, buffer.remaining());
            buffer.get(out, off, n);
            off += n;
            len -= n;
        }
    }

    @Override
    public abstract void close();

    /** An uncompressed dump: skips move the file position without reading. */
    static final class OfChannel extends DumpInput {
        private final FileChannel channel;
        private final long size;
        private long readEnd = Long.MAX_VALUE;

        OfChannel(FileChannel channel, long start, String description) throws IOException {
            this(channel, start, description, ByteBuffer.allocate(BUFFER));
        }

        OfChannel(FileChannel channel, long start, String description, ByteBuffer buffer) throws IOException {
            super(description, buffer);
            this.channel = channel;
            this.size = channel.size();
            this.bufferStart = start;
        }

        /** Continues reading at {@code offset}; reads ahead no further than {@code end}. */
        void moveTo(long offset, long end) {
            bufferStart = offset;
            readEnd = end;
            buffer.limit(0);
        }

        @Override
        boolean fill(int n) {
            if (buffer.remaining() >= n) return true;
            long pos = position();
            if (pos + n > size) return false;
            buffer.compact();
            bufferStart = pos;
            // read no further than the caller said it needs, unless it already reads past that
            long stop = pos < readEnd ? Math.min(size, readEnd) : size;
            buffer.limit((int) Math.max(n, Math.min(buffer.capacity(), stop - pos)));
            try {
                while (buffer.position() < n) {
                    int r = channel.read(buffer, bufferStart + buffer.position());
                    if (r < 0) break;
                }
            } catch (IOException e) {
                throw new TargetReadException("cannot read " + description + " at offset " + pos + ": " + e.getMessage(), e);
            } finally {
                buffer.flip();
            }
            return buffer.remaining() >= n;
        }

        @Override
        void skip(long n, String what) {
            if (!skipInBuffer(n, size, what)) {
                bufferStart = position() + n;
                buffer.limit(0);
            }
        }

        @Override
        long endForMessage() {
            return size;
        }

        @Override
        public void close() {
            // the channel belongs to the reader
        }
    }

    /**
     * A whole pass over an uncompressed dump (the default) through memory-mapped windows of {@value #WINDOW}
     * bytes: no copy into the process, the skim reads the page cache directly. Each window is
     * unmapped as soon as the pass moves past it, so the resident set holds one window of the
     * dump (JDK 17 has no public unmap: {@code sun.misc.Unsafe.invokeCleaner}, looked up
     * reflectively; without it windows go when the garbage collector frees them). Nothing may
     * keep a view of a window: reads copy out.
     */
    static final class OfMapped extends DumpInput {
        static final long WINDOW = 32L << 20;
        private static final ByteBuffer NONE = ByteBuffer.allocate(0);
        private static final java.lang.invoke.MethodHandle UNMAP = unmapper();
        private final FileChannel channel;
        private final long size;

        OfMapped(FileChannel channel, long start, String description) throws IOException {
            super(description, NONE);
            this.channel = channel;
            this.size = channel.size();
            this.bufferStart = start;
        }

        @Override
        boolean fill(int n) {
            if (buffer.remaining() >= n) return true;
            long pos = position();
            if (pos + n > size) return false;
            ByteBuffer window;
            try {
                window = channel.map(FileChannel.MapMode.READ_ONLY, pos, Math.min(size - pos, Math.max(n, WINDOW)));
            } catch (IOException e) {
                throw new TargetReadException("cannot read " + description + " at offset " + pos + ": " + e.getMessage(), e);
            }
            release();
            buffer = window;
            bufferStart = pos;
            return true;
        }

        @Override
        void skip(long n, String what) {
            if (!skipInBuffer(n, size, what)) {
                long to = position() + n;
                release();
                buffer = NONE;
                bufferStart = to;
            }
        }

        @Override
        long endForMessage() {
            return size;
        }

        private void release() {
            if (buffer == NONE || UNMAP == null) return;
            try {
                UNMAP.invoke(buffer);
            } catch (Throwable ignored) {
                // the garbage collector unmaps it later
            }
        }

        @Override
        public void close() {
            release();
            buffer = NONE;
        }

        private static java.lang.invoke.MethodHandle unmapper() {
            try {
                Class<?> unsafe = Class.forName("sun.misc.Unsafe");
                java.lang.reflect.Field f = unsafe.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                return java.lang.invoke.MethodHandles.lookup()
                        .findVirtual(unsafe, "invokeCleaner", java.lang.invoke.MethodType.methodType(void.class, ByteBuffer.class))
                        .bindTo(f.get(null));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }

    /** A compressed dump: every pass decompresses it again from the start; nothing is written to disk. */
    static final class OfStream extends DumpInput {
        private final InputStream in;
        private boolean eof;

        OfStream(InputStream in, String description) {
            super(description, ByteBuffer.allocate(BUFFER));
            this.in = in;
        }

        @Override
        boolean fill(int n) {
            if (buffer.remaining() >= n) return true;
            if (eof) return false;
            long pos = position();
            buffer.compact();
            bufferStart = pos;
            try {
                byte[] a = buffer.array();
                while (buffer.position() < n) {
                    int r = in.read(a, buffer.position(), buffer.capacity() - buffer.position());
                    if (r < 0) {
                        eof = true;
                        break;
                    }
                    buffer.position(buffer.position() + r);
                }
            } catch (IOException e) {
                throw new TargetReadException(description + " cannot be decompressed at offset " + pos + " ("
                        + e.getMessage() + "): the compressed file is damaged or truncated", e);
            } finally {
                buffer.flip();
            }
            return buffer.remaining() >= n;
        }

        @Override
        void skip(long n, String what) {
            if (n < 0) throw new TargetReadException(description + " is damaged: " + what + " at offset "
                    + position() + " claims " + n + " bytes");
            while (n > 0) {
                if (!fill(1)) throw truncated(what);
                int k = (int) Math.min(n, buffer.remaining());
                buffer.position(buffer.position() + k);
                n -= k;
            }
        }

        @Override
        long endForMessage() {
            return position() + buffer.remaining();
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException ignored) {
                // read-only
            }
        }
    }
}
