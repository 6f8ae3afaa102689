package io.mpilens.agent.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Build time, after the agent jar is assembled: rewrites the jar with {@value BootPack#ENTRY}
 * stored instead of deflated and without directory entries, every other entry as it was and in
 * the same order. {@code Premain} reads the pack at every start-up: inflating its ≈ 260 KB took
 * ≈ 2 ms of each rank JVM's start-up (docs/performance.md, start-up), a plain read ≈ 1 ms; the
 * jar grows by what deflating saved (≈ 150 KB). And the class path indexes every entry of the
 * jar, in interpreted code, when it loads {@code Premain}: directory entries name nothing a
 * class loader looks up. Not loaded at run time.
 */
public final class StorePack {
    private StorePack() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: StorePack AGENT_JAR");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        Path tmp = jar.resolveSibling(jar.getFileName() + ".storing");
        boolean stored = false;
        int dropped = 0;
        try (ZipFile in = new ZipFile(jar.toFile());
             OutputStream file = Files.newOutputStream(tmp);
             ZipOutputStream out = new ZipOutputStream(file)) {
            for (Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (entry.isDirectory()) {
                    dropped++;
                    continue;
                }
                byte[] data;
                try (InputStream body = in.getInputStream(entry)) {
                    data = body.readAllBytes();
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                if (entry.getName().equals(BootPack.ENTRY)) {
                    CRC32 crc = new CRC32();
                    crc.update(data);
                    copy.setMethod(ZipEntry.STORED);
                    copy.setSize(data.length);
                    copy.setCompressedSize(data.length);
                    copy.setCrc(crc.getValue());
                    stored = true;
                }
                out.putNextEntry(copy);
                out.write(data);
                out.closeEntry();
            }
        }
        if (!stored) {
            Files.delete(tmp);
            System.err.println("StorePack: no " + BootPack.ENTRY + " in " + jar);
            System.exit(1);
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("StorePack: " + BootPack.ENTRY + " stored uncompressed in " + jar + ", "
                + dropped + " directory entries dropped");
    }
}
