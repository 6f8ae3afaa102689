package io.mpilens.plugin.model;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.Transition;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** The job's timeline ({@code headless.ft.Timeline}) as lines for a view: local time, subject, change, evidence. */
public final class TimelineLines {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    private TimelineLines() {
    }

    /** The last {@code max} transitions, oldest first; first sightings of healthy states are left out. */
    public static List<String> of(JobModel model, int max) {
        List<String> out = new ArrayList<>();
        for (Transition t : model.timeline()) {
            if (t.from() == null && (t.to().equals("OK") || t.to().equals("UP"))) continue;
            out.add(TIME.format(t.at()) + "  " + t.subject() + ": " + (t.from() == null ? "" : t.from() + " \u2192 ") + t.to()
                    + (t.why() == null || t.why().isEmpty() ? "" : "  (" + t.why() + ")"));
        }
        return out.size() <= max ? out : out.subList(out.size() - max, out.size());
    }
}
