package io.mpilens.headless;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No inline fully qualified project names in main code: {@code io.mpilens.x.Y} is imported, not
 * written out, in every module's main sources (the Eclipse plugin's included). A source check,
 * not one over class files: a class file records the same reference whether the source imported
 * the name or wrote it out, so {@link ArchitectureTest} cannot tell them apart. Import and package
 * lines, comments, string and character literals and text blocks are not code and are skipped
 * (a class named in a string is looked up by name on purpose).
 */
class QualifiedNamesTest {
    private static final Pattern QUALIFIED = Pattern.compile("\\bio\\.mpilens(?:\\.[a-z_][A-Za-z0-9_]*)*(?:\\.[A-Z][A-Za-z0-9_]*)?");

    @Test
    void mainCodeImportsProjectNames() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertTrue(Files.isRegularFile(root.resolve("pom.xml")) && Files.isDirectory(root.resolve("headless")),
                "run from the headless module of the repository: " + root);
        List<Path> sources;
        try (Stream<Path> all = Files.walk(root)) {
            sources = all.filter(p -> p.toString().endsWith(".java") && isMainSource(root.relativize(p))).sorted()
                    .collect(Collectors.toList());
        }
        Set<String> modules = sources.stream().map(p -> root.relativize(p).getName(0).toString()).collect(Collectors.toSet());
        assertTrue(modules.containsAll(List.of("handle-api", "runtime-agent", "headless", "mcp", "plugin", "bench", "examples")),
                "walked every module's main sources: " + modules);

        List<String> inline = new ArrayList<>();
        for (Path f : sources) {
            String file = root.relativize(f).toString().replace('\\', '/');
            for (String[] found : inlineNames(Files.readString(f))) {
                inline.add(file + ":" + found[0] + ": " + found[1]);
            }
        }
        assertEquals(List.of(), inline, "inline qualified names in main code: import them");
    }

    /** Only code counts: not the import, the comment, the string, the character or the text block. */
    @Test
    void onlyCodeCounts() {
        String src = "package io.mpilens.x;\n"
                + "import io.mpilens.api.model.HandleInfo;\n"
                + "/** {@link io.mpilens.api.model.HandleKind} */\n"
                + "class A { // io.mpilens.api.model.MpiState\n"
                + "  String s = \"io.mpilens.agent.weave.Weaving\" + '\"' + \"\\\" io.mpilens.in.Escaped\";\n"
                + "  String t = \"\"\"\n    io.mpilens.in.TextBlock\n    \"\"\";\n"
                + "  Object o = io.mpilens.api.job.HostName.local(); /* io.mpilens.in.Block */ io.mpilens.api.model.HandleKind k;\n"
                + "}\n";
        List<String> found = new ArrayList<>();
        for (String[] f : inlineNames(src)) found.add(f[0] + ": " + f[1]);
        assertEquals(List.of("9: io.mpilens.api.job.HostName", "9: io.mpilens.api.model.HandleKind"), found);
    }

    /** Line number and name of each inline qualified project name in a source file's code. */
    static List<String[]> inlineNames(String src) {
        List<String[]> out = new ArrayList<>();
        String[] lines = code(src).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].strip();
            if (t.startsWith("import ") || t.startsWith("package ")) continue;
            Matcher m = QUALIFIED.matcher(lines[i]);
            while (m.find()) out.add(new String[] {Integer.toString(i + 1), m.group()});
        }
        return out;
    }

    /** A module's main sources: {@code src/main/java} of any module, and the Eclipse plugin's {@code plugin/src}. */
    private static boolean isMainSource(Path relative) {
        String p = relative.toString().replace('\\', '/');
        for (Path part : relative) {
            String s = part.toString();
            if (s.startsWith(".") || s.equals("target")) return false;
        }
        return p.contains("/src/main/java/") || p.startsWith("plugin/src/");
    }

    /**
     * The source with comments, string and character literals and text blocks blanked (lines kept,
     * so line numbers stay true).
     */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            int end;
            if (src.startsWith("//", i)) {
                end = src.indexOf('\n', i);
                if (end < 0) end = n;
            } else if (src.startsWith("/*", i)) {
                end = src.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (src.startsWith("\"\"\"", i)) {
                end = src.indexOf("\"\"\"", i + 3);
                while (end > 0 && src.charAt(end - 1) == '\\') end = src.indexOf("\"\"\"", end + 1); // an escaped quote
                end = end < 0 ? n : end + 3;
            } else if (src.charAt(i) == '"' || src.charAt(i) == '\'') {
                char quote = src.charAt(i);
                end = i + 1;
                while (end < n && src.charAt(end) != quote && src.charAt(end) != '\n') end += src.charAt(end) == '\\' ? 2 : 1;
                end = Math.min(end + 1, n);
            } else {
                out.append(src.charAt(i++));
                continue;
            }
            for (int k = i; k < end; k++) out.append(src.charAt(k) == '\n' ? '\n' : ' ');
            i = end;
        }
        return out.toString();
    }
}
