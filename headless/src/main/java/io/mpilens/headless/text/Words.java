package io.mpilens.headless.text;

import java.util.ArrayList;
import java.util.List;

/** Text broken into lines at spaces: the one rule of every wrapped paragraph the CLI prints. */
public final class Words {
    private Words() {
    }

    /**
     * {@code words} in lines of at most {@code width} columns (a word longer than that alone on its
     * line): the first line starts with {@code head}, each further line with {@code indent}; a word
     * follows a space unless it is the first on its line after {@code indent}.
     */
    public static List<String> wrap(String head, String indent, String[] words, int width) {
        List<String> out = new ArrayList<>();
        StringBuilder line = new StringBuilder(head);
        for (String word : words) {
            boolean holdsWord = line.length() > indent.length();
            if (holdsWord && line.length() + 1 + word.length() > width) {
                out.add(line.toString());
                line = new StringBuilder(indent).append(word);
            } else {
                if (holdsWord) line.append(' ');
                line.append(word);
            }
        }
        out.add(line.toString());
        return out;
    }
}
