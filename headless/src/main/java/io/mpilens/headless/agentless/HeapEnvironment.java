package io.mpilens.headless.agentless;

import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment variables of the target process as the JDK keeps them in its heap
 * ({@code java.lang.ProcessEnvironment.theEnvironment}, a HashMap of byte-backed strings): there
 * only once some Java code called {@code System.getenv()}. Read by field reads, so it works in a
 * heap dump too. Empty when absent.
 */
final class HeapEnvironment {
    /** Bounds the walk of the map's buckets and chains: an environment has hundreds of entries, not millions. */
    private static final int MAX_ENTRIES = 100_000;

    private HeapEnvironment() {
    }

    static Map<String, String> read(TargetReader reader) {
        Map<String, String> out = new HashMap<>();
        for (TargetClass c : reader.classesNamed("java.lang.ProcessEnvironment")) {
            Object map = reader.staticField(c, "theEnvironment");
            if (!(map instanceof TargetObject)) continue;
            Object table = reader.fields((TargetObject) map, List.of("table")).get("table");
            if (!(table instanceof TargetObject)) continue;
            TargetObject[] buckets = reader.objects((TargetObject) table, 0,
                    Math.min(reader.arrayLength((TargetObject) table), MAX_ENTRIES));
            int walked = 0;
            for (TargetObject node : buckets) {
                while (node != null && walked++ < MAX_ENTRIES) {
                    Map<String, Object> f = reader.fields(node, List.of("key", "value", "next"));
                    String k = text(reader, f.get("key")), v = text(reader, f.get("value"));
                    if (k != null && v != null) out.putIfAbsent(k, v);
                    node = f.get("next") instanceof TargetObject ? (TargetObject) f.get("next") : null;
                }
            }
        }
        return out;
    }

    /** A ProcessEnvironment.Variable or .Value: its {@code str} field; a plain String as it is. */
    private static String text(TargetReader reader, Object o) {
        if (!(o instanceof TargetObject)) return null;
        TargetObject t = (TargetObject) o;
        if (t.typeName().equals("java.lang.String")) return reader.string(t);
        Object s = reader.fields(t, List.of("str")).get("str");
        return s instanceof TargetObject ? reader.string((TargetObject) s) : null;
    }
}
