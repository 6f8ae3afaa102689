package io.mpilens.plugin.views;

import io.mpilens.plugin.model.Rgb;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.swt.graphics.Color;

/** SWT colours of the model's {@link Rgb}s (device-less colours need no disposal). */
final class Colors {
    private static final Map<Rgb, Color> CACHE = new ConcurrentHashMap<>();

    private Colors() {
    }

    static Color of(Rgb rgb) {
        return rgb == null ? null : CACHE.computeIfAbsent(rgb, c -> new Color(c.red(), c.green(), c.blue()));
    }
}
