package io.mpilens.mcp;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The clients nobody here wrote, from the npm registry, installed at test time under target/
 * (src/test/node/package.json pins them). No node, no npm, or no registry: the test that needs
 * them is skipped, saying why; never red for it.
 */
final class NodeClients {
    private static final Path SOURCES = Paths.get("src/test/node").toAbsolutePath();

    private NodeClients() {
    }

    static synchronized Path install(Path dir) throws Exception {
        Files.createDirectories(dir);
        for (String f : new String[] {"package.json", "client.mjs", "cancel.mjs"}) {
            Files.copy(SOURCES.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        if (Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/sdk"))
                && Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/inspector-cli"))) return dir;
        Assumptions.assumeTrue(runs("node", "--version"), "node is not installed: the TypeScript clients cannot run");
        Assumptions.assumeTrue(runs("npm", "--version"), "npm is not installed: the TypeScript clients cannot be installed");
        ProcessBuilder b = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund").directory(dir.toFile())
                .redirectErrorStream(true);
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) p.destroyForcibly();
        Assumptions.assumeTrue(ended && p.exitValue() == 0,
                () -> "npm install of the MCP clients failed (is the npm registry reachable?): skipped. npm said: " + out);
        return dir;
    }

    private static boolean runs(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
