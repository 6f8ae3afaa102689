package io.mpilens.headless.hprof;

import io.mpilens.api.target.TargetReadException;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.GZIPInputStream;

/**
 * The file a {@link HeapDumpScan} reads, plain or gzip-compressed (told by its first two bytes):
 * it opens the input of each pass — mapped windows or large reads for a plain dump, a fresh
 * gunzip for a compressed one, or the bytes decompressed once for a small one — and reads bytes
 * at an offset for the lazy reads of array elements.
 */
final class DumpFile implements AutoCloseable {
    /** A compressed dump up to this size is decompressed into memory once instead of once per pass. */
    private static final long INFLATE_IN_MEMORY = 32L << 20;
    /**
     * Whole passes through mapped windows instead of reads into a buffer (see docs/performance.md, "Heap dumps"):
     * on by default (less CPU, no copy); {@code -Dmpilens.hprof.mmap=false} reads into a buffer instead.
     */
    static final boolean MAPPED_PASSES = !"false".equals(System.getProperty("mpilens.hprof.mmap"));

    final String name;
    private final Path path;
    final FileChannel channel;
    final long size;
    final boolean compressed;
    private byte[] inflated;
    /** Compressed bytes read by the current pass's gunzip, for progress. */
    private long counted;

    private DumpFile(Path path, FileChannel channel) throws IOException {
        this.path = path;
        this.name = String.valueOf(path.getFileName());
        this.channel = channel;
        this.size = channel.size();
        ByteBuffer magic = ByteBuffer.allocate(2);
        channel.read(magic, 0);
        this.compressed = magic.position() == 2 && (magic.get(0) & 0xff) == 0x1f && (magic.get(1) & 0xff) == 0x8b;
    }

    /** Opens the dump; a compressed one of at most {@value #INFLATE_IN_MEMORY} bytes is decompressed now. */
    static DumpFile open(Path path) {
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new TargetReadException("cannot open heap dump " + path + ": " + whyNotOpened(e), e);
        }
        try {
            DumpFile file = new DumpFile(path, channel);
            if (file.compressed && file.size <= INFLATE_IN_MEMORY) file.inflated = file.inflate();
            return file;
        } catch (IOException e) {
            close(channel);
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            close(channel);
            throw e;
        }
    }

    /** The reason alone: a file-system exception's message is often just the path again. */
    static String whyNotOpened(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException) {
            String reason = ((FileSystemException) e).getReason();
            if (reason != null) return reason;
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** Input from the start of the (decompressed) dump, in small reads: for the header. */
    DumpInput input() {
        try {
            if (!compressed) return new DumpInput.OfChannel(channel, 0, name);
            if (inflated != null) return new DumpInput.OfStream(new ByteArrayInputStream(inflated), name);
            return new DumpInput.OfStream(new GZIPInputStream(new Counting(Files.newInputStream(path)), 1 << 16), name);
        } catch (IOException e) {
            throw new TargetReadException(name + " is not a readable gzip-compressed dump: " + e.getMessage(), e);
        }
    }

    /** Input for a whole pass: an uncompressed dump is read in large slices into native memory (or mapped). */
    DumpInput passInput() {
        if (compressed) return input();
        try {
            if (MAPPED_PASSES) return new DumpInput.OfMapped(channel, 0, name);
            return new DumpInput.OfChannel(channel, 0, name, ByteBuffer.allocateDirect(DumpInput.PASS_BUFFER));
        } catch (IOException e) {
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
        }
    }

    /** Input for reads of single blocks of an uncompressed dump ({@link DumpInput.OfChannel#moveTo}). */
    DumpInput.OfChannel blockInput(int bufferSize) {
        try {
            return new DumpInput.OfChannel(channel, 0, name, ByteBuffer.allocate(bufferSize));
        } catch (IOException e) {
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
        }
    }

    /** Bytes of the file a pass at this input has done, for progress. */
    long done(DumpInput in) {
        if (!compressed) return in.position();
        return inflated != null ? size * in.position() / Math.max(1, inflated.length) : counted;
    }

    /** {@code count} bytes of an array's elements from {@code from}, from memory or from the file. */
    byte[] elementBytes(HeapRecord r, long from, long count) {
        if (count > Integer.MAX_VALUE - 8) {
            throw new TargetReadException(name + ": a read of " + count + " bytes from one array is more than mpilens"
                    + " reads at once (object 0x" + Long.toHexString(r.id()) + "); the dump is probably damaged");
        }
        int n = (int) count;
        if (r.data() != null) {
            byte[] out = new byte[n];
            System.arraycopy(r.data(), (int) from, out, 0, n);
            return out;
        }
        return readAt(r.dataOffset() + from, n);
    }

    private byte[] readAt(long offset, int n) {
        if (offset < 0 || n < 0 || offset + n > size) {
            throw new TargetReadException(name + " is damaged: a read of " + n + " bytes at offset " + offset
                    + " passes its end at " + size);
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        try {
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) throw new IOException("unexpected end of file");
            }
        } catch (IOException e) {
            throw new TargetReadException("cannot read " + name + " at offset " + offset + ": " + e.getMessage(), e);
        }
        return b.array();
    }

    private byte[] inflate() {
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(path)), 1 << 16)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] b = new byte[1 << 16];
            long limit = 8 * INFLATE_IN_MEMORY;
            for (int n; (n = in.read(b)) > 0; ) {
                out.write(b, 0, n);
                if (out.size() > limit) return null; // larger than worth keeping: decompress per pass
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new TargetReadException(name + " cannot be decompressed (" + e.getMessage()
                    + "): the compressed file is damaged or truncated", e);
        }
    }

    /** Counts compressed bytes read, for progress. */
    private final class Counting extends FilterInputStream {
        Counting(InputStream in) {
            super(new BufferedInputStream(in, 1 << 16));
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) counted++;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) counted += n;
            return n;
        }
    }

    @Override
    public void close() {
        close(channel);
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // read-only
        }
    }
}
