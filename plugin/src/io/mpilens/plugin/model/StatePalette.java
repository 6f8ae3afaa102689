package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.StatusWord;

/**
 * The colours of the fault-tolerance model's states ({@code headless.ft}), in one place.
 * Process fills are light enough for black text; borders (communicator, host) are saturated so
 * the state reads at a glance.
 */
public final class StatePalette {
    private StatePalette() {
    }

    public static Rgb fill(ProcessState s) {
        switch (s) {
            case OK: return Rgb.hex(0xa5d6a7);          // green
            case JOINING: return Rgb.hex(0x90caf9);     // blue
            case UNAVAILABLE: return Rgb.hex(0xffe082); // amber: slow or stopped, not dead
            case FAILED: return Rgb.hex(0xef5350);      // red
            case FINALIZED: return Rgb.hex(0xbdbdbd);   // grey
            default: throw new IllegalArgumentException(s.toString());
        }
    }

    public static Rgb border(CommState s) {
        switch (s) {
            case OK: return Rgb.hex(0x2e7d32);
            case DETECTED: return Rgb.hex(0xef6c00);
            case RECOVERING: return Rgb.hex(0xf9a825);  // amber: survivors inside the calls that rebuild it
            case REVOKED: return Rgb.hex(0x6a1b9a);     // purple: ULFM revoke (no Java binding has it yet)
            case RECOVERED: return Rgb.hex(0x1565c0);   // blue: rebuilt without its failed members
            case FAILED: return Rgb.hex(0xc62828);
            default: throw new IllegalArgumentException(s.toString());
        }
    }

    public static Rgb border(HostState s) {
        switch (s) {
            case UP: return Rgb.hex(0x2e7d32);
            case PARTIAL: return Rgb.hex(0xef6c00);
            case DOWN: return Rgb.hex(0xc62828);
            case UNKNOWN: return Rgb.hex(0xffe082); // as an UNAVAILABLE rank
            default: throw new IllegalArgumentException(s.toString());
        }
    }

    /**
     * The job's status word ({@link StatusWord}): green OK, amber when it holds alarms only (as an
     * UNAVAILABLE rank), red with an error or an undefined rank.
     */
    public static Rgb fill(StatusWord w) {
        if (w.ok()) return fill(ProcessState.OK);
        boolean alarmsOnly = (w.bits() & ~(StatusWord.AL_PR0 | StatusWord.AL_OTH)) == 0;
        return alarmsOnly ? fill(ProcessState.UNAVAILABLE) : fill(ProcessState.FAILED);
    }

    /** Text colour of a handle row: orphans red, leaked orange, released grey, else default (null). */
    public static Rgb foreground(HandleInfo h) {
        if (h.isOrphan()) return Rgb.hex(0xc62828);
        if (h.leaked()) return Rgb.hex(0xe65100);
        if (h.state() == Lifecycle.RELEASED) return Rgb.hex(0x757575);
        return null;
    }

    /** Orphans and leaked handles are also bold, so they stand out without colour. */
    public static boolean emphasised(HandleInfo h) {
        return h.isOrphan() || h.leaked();
    }
}
