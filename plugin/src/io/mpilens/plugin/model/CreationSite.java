package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import java.util.Optional;

/**
 * A creation stack frame as a place in the source: the declaring type (nested types joined
 * with '.', as JDT names them) and the 1-based line.
 * {@code io.mpilens.examples.HandleTour$Part.run(HandleTour.java:46)} → {@code io.mpilens.examples.HandleTour.Part}, 46.
 */
public record CreationSite(String type, int line, String frame) {
    /** The site of {@code h.createdAt()}, empty if it has none or the frame has no line. */
    public static Optional<CreationSite> of(HandleInfo h) {
        return h.createdAt() == null ? Optional.empty() : parse(h.createdAt());
    }

    public static Optional<CreationSite> parse(String frame) {
        int open = frame.indexOf('(');
        int close = frame.lastIndexOf(')');
        int colon = frame.lastIndexOf(':', close);
        if (open <= 0 || close < open || colon < open) return Optional.empty();
        int method = frame.lastIndexOf('.', open);
        if (method <= 0) return Optional.empty();
        int line;
        try {
            line = Integer.parseInt(frame.substring(colon + 1, close).trim());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (line <= 0) return Optional.empty();
        String binary = frame.substring(0, method);
        // drop a module or class-loader prefix ("app//", "java.base/")
        binary = binary.substring(binary.lastIndexOf('/') + 1);
        return Optional.of(new CreationSite(sourceType(binary), line, frame));
    }

    /** {@code a.B$C$1} → {@code a.B.C}: anonymous and local classes open at their enclosing type. */
    private static String sourceType(String binary) {
        String[] parts = binary.split("\\$");
        StringBuilder sb = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].isEmpty() || Character.isDigit(parts[i].charAt(0))) break;
            sb.append('.').append(parts[i]);
        }
        return sb.toString();
    }
}
