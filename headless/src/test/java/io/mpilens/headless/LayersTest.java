package io.mpilens.headless;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers of {@code headless} (docs/architecture.md, "Layers of headless"): readers (a
 * target in, snapshots out) below the pure model below the observers that do I/O below the
 * outputs below the CLI and the {@code MpiLens} facade. A package imports only packages of a
 * lower layer; this test fails on any import that points up or sideways into a layer above.
 */
class LayersTest {
    private static final String BASE = "io.mpilens.headless";
    /** Package (relative to {@value #BASE}; "" is the facade) to its layer. */
    static final Map<String, Integer> LAYER = Map.ofEntries(
            Map.entry("jdi", 0), Map.entry("job", 1), Map.entry("hprof", 1), Map.entry("agentless", 2),
            Map.entry("ft", 3),
            Map.entry("observe", 4), Map.entry("launch", 4),
            Map.entry("json", 5), Map.entry("text", 5), Map.entry("leaks", 6), Map.entry("share", 6),
            Map.entry("cli", 7),
            Map.entry("", 8));
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?" + Pattern.quote(BASE) + "\\.?([a-z]*)\\.?[A-Z]", Pattern.MULTILINE);

    @Test
    void noPackageImportsOneAboveIt() throws IOException {
        Path root = Paths.get("src/main/java/io/mpilens/headless");
        List<String> upward = new ArrayList<>();
        TreeSet<String> seen = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                Path dir = root.relativize(f.getParent());
                String pkg = dir.toString().replace('/', '.');
                seen.add(pkg);
                Integer own = LAYER.get(pkg);
                if (own == null) {
                    upward.add(pkg + ": a package without a layer (add it to LayersTest and docs/architecture.md)");
                    continue;
                }
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.equals(pkg)) continue;
                    Integer layer = LAYER.get(target);
                    if (layer == null || layer >= own) {
                        upward.add(f.getFileName() + " (" + (pkg.isEmpty() ? "facade" : pkg) + ", layer " + own + ") imports "
                                + BASE + (target.isEmpty() ? "" : "." + target) + " (layer " + layer + ")");
                    }
                }
            }
        }
        assertTrue(seen.size() >= 10, "walked the sources: " + seen);
        assertEquals(List.of(), upward);
    }
}
