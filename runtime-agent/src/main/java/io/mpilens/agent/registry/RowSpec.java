package io.mpilens.agent.registry;

import io.mpilens.api.model.HandleKind;

/**
 * What the interception layer knows about a new handle. Filled once per creation, off the
 * request hot path (requests use {@link HandleRegistry#addRequest}).
 */
public final class RowSpec {
    public final HandleKind kind;
    public int proc = -1;
    public String bindingClass;
    public String call;
    public String name;
    public int flags;
    public long cHandle;
    public int i0, i1, i2;
    public long l0, l1, l2;
    /** Counted references (wrappers): errhandler/communicator and group/errhandler per kind. */
    public Object ref0, ref1;
    /** Lineage only: the handle this one was derived from. */
    public Object derivedFrom;
    public Object[] parents;
    /**
     * A derived datatype's constructor arguments, {@code [TYPE_ARG_*, n, v1..vn]} each (layout
     * {@code SIDE_TYPE_ARGS}), except that a datatype is given as its position in {@link #parents};
     * the registry writes its id instead. Null: not recorded.
     */
    public long[] typeArgs;
    public int[] members, remoteMembers, dims, graphIndex, graphEdges;
    /** A distributed graph's in- and out-neighbours as this rank gave or got them; null: not known. */
    public int[] distSources, distDestinations;
    public boolean[] periods;
    public String[] stack;
    /** An info made by dup: the info whose pairs the copy starts with. */
    public Object infoFrom;
    /** A window, file or communicator created with an info: that info (its pairs are copied as they are now). */
    public Object createdWithInfo;
    /** A file: its name and access mode as passed, the mode's bits by name; MIN_VALUE / null when not known. */
    public String fileName;
    public int fileMode = Integer.MIN_VALUE;
    public String fileModeFlags;
    /** Filled by the registry from the above: SIDE_INFO_PAIRS values, the info's id (0: none). */
    long[] infoPairsSection;
    long createdWithInfoId;

    public RowSpec(HandleKind kind) {
        this.kind = kind;
    }
}
