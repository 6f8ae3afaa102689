package io.mpilens.api.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One MPI object as mpilens saw it: identity, lifecycle, what keeps it alive, where it was
 * created, and the fields of its kind. Immutable.
 *
 * <p>Integer fields that a kind or binding does not have hold {@link #UNKNOWN}; references to
 * other handles are registry ids, {@link #NONE} when absent.
 */
public final class HandleInfo {
    public static final int UNKNOWN = Integer.MIN_VALUE;
    public static final long NONE = 0L;

    private final long id;
    private final HandleKind kind;
    private final int ownerRank;
    private final String bindingClass;
    private final String name;
    private final boolean predefined;
    private final Lifecycle state;
    private final int refCount;
    private final long[] heldBy;
    private final long cHandle;
    private final boolean hasCHandle;
    private final boolean leaked;
    private final List<String> creationStack;
    // communicator and group
    private final int rank;
    private final int size;
    private final MemberList members;
    private final boolean inter;
    private final MemberList remoteMembers;
    private final Topology topology;
    private final long errhandler;
    private final long group;
    private final long derivedFrom;
    private final long[] communicators;
    // request
    private final String creatingCall;
    private final int peer;
    private final int tag;
    private final long communicator;
    private final boolean persistent;
    private final boolean complete;
    // datatype
    private final String constructor;
    private final boolean committed;
    private final long typeSize;
    private final long extent;
    private final long lowerBound;
    private final long[] parents;
    private final List<TypeArgument> typeArguments;
    // window
    private final long windowSize;
    private final int displacementUnit;
    // errhandler
    private final long[] attachedTo;
    // info pairs (an info's own; a window's, file's or communicator's: those of the info it was created with, then)
    private final Map<String, String> infoPairs;
    private final int infoPairCount;
    private final boolean hasInfoPairs;
    private final long createdWithInfo;
    private final long[] usedBy;
    // file
    private final String fileName;
    private final int accessMode;
    private final String accessModeFlags;
    // cached attributes; a communicator's windows and files
    private final Map<Integer, String> attributes;
    private final long[] windows;
    private final long[] files;

    /**
     * Shared empties: almost every handle of a big snapshot (requests) has none of the id lists,
     * info pairs or attributes, and a fresh empty array per list in the builder, its copy, and an
     * empty map copied twice over cost ≈ 450 bytes per handle (a 100,000-handle snapshot
     * allocated 107 MB instead of 62). Safe to share: every getter of an array returns a copy.
     */
    private static final long[] NO_LONGS = new long[0];
    private static final int[] NO_INTS = new int[0];

    private static long[] copy(long[] v) {
        return v.length == 0 ? NO_LONGS : v.clone();
    }

    private HandleInfo(Builder b) {
        id = b.id;
        kind = Objects.requireNonNull(b.kind, "kind");
        ownerRank = b.ownerRank;
        bindingClass = b.bindingClass;
        name = b.name;
        predefined = b.predefined;
        state = Objects.requireNonNull(b.state, "state");
        refCount = b.refCount;
        heldBy = copy(b.heldBy);
        cHandle = b.cHandle;
        hasCHandle = b.hasCHandle;
        leaked = b.leaked;
        creationStack = b.creationStack.isEmpty() ? List.of() : Collections.unmodifiableList(List.copyOf(b.creationStack));
        rank = b.rank;
        size = b.size;
        members = b.membersList != null ? b.membersList : MemberList.of(b.members);
        inter = b.inter;
        remoteMembers = b.remoteMembersList != null ? b.remoteMembersList : MemberList.of(b.remoteMembers);
        topology = b.topology;
        errhandler = b.errhandler;
        group = b.group;
        derivedFrom = b.derivedFrom;
        communicators = copy(b.communicators);
        creatingCall = b.creatingCall;
        peer = b.peer;
        tag = b.tag;
        communicator = b.communicator;
        persistent = b.persistent;
        complete = b.complete;
        constructor = b.constructor;
        committed = b.committed;
        typeSize = b.typeSize;
        extent = b.extent;
        lowerBound = b.lowerBound;
        parents = copy(b.parents);
        typeArguments = List.copyOf(b.typeArguments);
        windowSize = b.windowSize;
        displacementUnit = b.displacementUnit;
        attachedTo = copy(b.attachedTo);
        infoPairs = b.infoPairs.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(b.infoPairs));
        infoPairCount = b.infoPairCount == UNKNOWN ? b.infoPairs.size() : b.infoPairCount;
        hasInfoPairs = b.hasInfoPairs;
        createdWithInfo = b.createdWithInfo;
        usedBy = copy(b.usedBy);
        fileName = b.fileName;
        accessMode = b.accessMode;
        accessModeFlags = b.accessModeFlags;
        attributes = b.attributes.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(b.attributes));
        windows = copy(b.windows);
        files = copy(b.files);
    }

    public static Builder builder(long id, HandleKind kind) {
        return new Builder(id, kind);
    }

    public Builder toBuilder() {
        Builder b = new Builder(id, kind);
        b.ownerRank = ownerRank; b.bindingClass = bindingClass; b.name = name; b.predefined = predefined;
        b.state = state; b.refCount = refCount; b.heldBy = heldBy; b.cHandle = cHandle;
        b.hasCHandle = hasCHandle; b.leaked = leaked; b.creationStack = creationStack; b.rank = rank;
        b.size = size; b.membersList = members; b.inter = inter; b.remoteMembersList = remoteMembers;
        b.topology = topology; b.errhandler = errhandler; b.group = group; b.derivedFrom = derivedFrom; b.communicators = communicators;
        b.creatingCall = creatingCall; b.peer = peer; b.tag = tag; b.communicator = communicator;
        b.persistent = persistent; b.complete = complete; b.constructor = constructor;
        b.committed = committed; b.typeSize = typeSize; b.extent = extent; b.lowerBound = lowerBound;
        b.parents = parents; b.typeArguments = typeArguments; b.windowSize = windowSize; b.displacementUnit = displacementUnit;
        b.attachedTo = attachedTo;
        b.infoPairs = infoPairs; b.infoPairCount = infoPairCount; b.hasInfoPairs = hasInfoPairs(); b.createdWithInfo = createdWithInfo;
        b.usedBy = usedBy; b.fileName = fileName; b.accessMode = accessMode; b.accessModeFlags = accessModeFlags;
        b.attributes = attributes; b.windows = windows; b.files = files;
        return b;
    }

    /** Registry id, unique within one JVM for its lifetime. */
    public long id() { return id; }
    public HandleKind kind() { return kind; }
    /** COMM_WORLD rank of the process that owns this handle, {@link #UNKNOWN} before MPI init. */
    public int ownerRank() { return ownerRank; }
    /** The binding's Java class of the wrapper, e.g. {@code mpi.Intracomm}. */
    public String bindingClass() { return bindingClass; }
    /** MPI object name, or the predefined handle's name; null when it has none. */
    public String name() { return name; }
    public boolean predefined() { return predefined; }
    public Lifecycle state() { return state; }
    /** Number of live objects that keep this one alive (pending requests, derived datatypes...). */
    public int refCount() { return refCount; }
    /** Ids of the handles that hold a reference to this one. */
    public long[] heldBy() { return heldBy.clone(); }
    /** Native MPI handle value; meaningful only when {@link #hasCHandle()}. */
    public long cHandle() { return cHandle; }
    public boolean hasCHandle() { return hasCHandle; }
    /** The application's wrapper was garbage-collected without being freed. */
    public boolean leaked() { return leaked; }
    /** Creation stack, top frame first, frames of the binding and mpilens removed. */
    public List<String> creationStack() { return creationStack; }
    /** The top user frame of the creation stack, or null. */
    public String createdAt() { return creationStack.isEmpty() ? null : creationStack.get(0); }

    /** Communicator or group: the owner's rank in it ({@code -1} when not a member). */
    public int rank() { return rank; }
    public int size() { return size; }
    /** Communicator (local group) or group members as COMM_WORLD ranks (a copy: {@link #memberList()} does not copy). */
    public int[] members() { return members.toArray(); }
    /** The same members, as the immutable list this handle shares with every other that has it. */
    public MemberList memberList() { return members; }
    public boolean inter() { return inter; }
    public int[] remoteMembers() { return remoteMembers.toArray(); }
    public MemberList remoteMemberList() { return remoteMembers; }
    /** Null when the communicator has no virtual topology. */
    public Topology topology() { return topology; }
    /** Errhandler set on this communicator or window, {@link #NONE} if not known. */
    public long errhandler() { return errhandler; }
    /** Group this communicator was built on, {@link #NONE} if none. */
    public long group() { return group; }
    /** The communicator this one was derived from (dup, split, create, shrink...): lineage. */
    public long derivedFrom() { return derivedFrom; }

    /** The call that created this handle, e.g. {@code iSend}, {@code split}, {@code createVector}. */
    public String creatingCall() { return creatingCall; }
    public int peer() { return peer; }
    public int tag() { return tag; }
    /** Request: its communicator; window: the communicator it was created on. */
    public long communicator() { return communicator; }
    public boolean persistent() { return persistent; }
    public boolean complete() { return complete; }

    public String constructor() { return constructor; }
    public boolean committed() { return committed; }
    public long typeSize() { return typeSize; }
    public long extent() { return extent; }
    public long lowerBound() { return lowerBound; }
    /** Datatypes this one was built from. */
    public long[] parents() { return parents.clone(); }
    /** Group: the live communicators created from it ({@code create}, {@code createGroup}), by id. */
    public long[] communicators() { return communicators.clone(); }
    /** Request: what it is for, from its creating call; null for other kinds or a call not known. */
    public RequestType requestType() { return kind == HandleKind.REQUEST ? RequestType.ofCall(creatingCall) : null; }
    /**
     * Datatype: the arguments of the call that constructed it ({@link #constructor()}), as the
     * application passed them; empty for predefined types, a dup, or when not recorded (an
     * agent that predates the field, a type created before a late attach).
     */
    public List<TypeArgument> typeArguments() { return typeArguments; }

    public long windowSize() { return windowSize; }
    public int displacementUnit() { return displacementUnit; }
    /** Errhandler: the communicators and windows it is set on. */
    public long[] attachedTo() { return attachedTo.clone(); }

    /**
     * Info: its key/value pairs now (the first {@code RegistryLayout.INFO_MAX_PAIRS}); window,
     * file, communicator: the pairs of the info it was created with, as they were then. Empty
     * when none (see {@link #hasInfoPairs()}: an info without pairs vs. nothing recorded).
     */
    public Map<String, String> infoPairs() { return infoPairs; }
    /** How many pairs there are (may exceed {@link #infoPairs()}'s size when cut); 0 when none are known. */
    public int infoPairCount() { return infoPairCount; }
    /** Whether pairs were recorded (an info that had pairs set, a handle created with a non-null info). */
    public boolean hasInfoPairs() { return hasInfoPairs; }
    /** Window, file, communicator: the info it was created with ({@link #NONE}: none, or MPI_INFO_NULL). */
    public long createdWithInfo() { return createdWithInfo; }
    /** Info: the windows, files and communicators created with it. */
    public long[] usedBy() { return usedBy.clone(); }
    /** File: its name as the application passed it; null when not known. */
    public String fileName() { return fileName; }
    /** File: the access mode as passed ({@link #UNKNOWN} when not known) and its bits by the binding's names, {@code MODE_CREATE|MODE_RDWR}. */
    public int accessMode() { return accessMode; }
    public String accessModeFlags() { return accessModeFlags; }
    /** Attributes the application cached on it: keyval to a text of the value (see docs/json-schema.md). */
    public Map<Integer, String> attributes() { return attributes; }
    /** Communicator: the windows and the files created on it. */
    public long[] windows() { return windows.clone(); }
    public long[] files() { return files.clone(); }

    /** Freed by the application but kept alive by holders. */
    public boolean isOrphan() { return state == Lifecycle.FREED; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HandleInfo)) return false;
        HandleInfo h = (HandleInfo) o;
        return id == h.id && kind == h.kind && ownerRank == h.ownerRank && Objects.equals(bindingClass, h.bindingClass)
                && Objects.equals(name, h.name) && predefined == h.predefined && state == h.state
                && refCount == h.refCount && Arrays.equals(heldBy, h.heldBy) && cHandle == h.cHandle
                && hasCHandle == h.hasCHandle && leaked == h.leaked && creationStack.equals(h.creationStack)
                && rank == h.rank && size == h.size && members.equals(h.members) && inter == h.inter
                && remoteMembers.equals(h.remoteMembers) && Objects.equals(topology, h.topology)
                && errhandler == h.errhandler && group == h.group && derivedFrom == h.derivedFrom && Arrays.equals(communicators, h.communicators)
                && Objects.equals(creatingCall, h.creatingCall) && peer == h.peer && tag == h.tag
                && communicator == h.communicator && persistent == h.persistent && complete == h.complete
                && Objects.equals(constructor, h.constructor) && committed == h.committed
                && typeSize == h.typeSize && extent == h.extent && lowerBound == h.lowerBound
                && Arrays.equals(parents, h.parents) && typeArguments.equals(h.typeArguments) && windowSize == h.windowSize
                && displacementUnit == h.displacementUnit && Arrays.equals(attachedTo, h.attachedTo)
                && infoPairs.equals(h.infoPairs) && infoPairCount == h.infoPairCount && hasInfoPairs == h.hasInfoPairs
                && createdWithInfo == h.createdWithInfo && Arrays.equals(usedBy, h.usedBy) && Objects.equals(fileName, h.fileName)
                && accessMode == h.accessMode && Objects.equals(accessModeFlags, h.accessModeFlags)
                && attributes.equals(h.attributes) && Arrays.equals(windows, h.windows) && Arrays.equals(files, h.files);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id) * 31 + kind.hashCode();
    }

    @Override
    public String toString() {
        return kind + "#" + id + (name == null ? "" : " " + name) + " " + state
                + (refCount > 0 ? " refCount=" + refCount : "");
    }

    /** Mutable builder; the decoder and tests fill it. */
    public static final class Builder {
        private final long id;
        private final HandleKind kind;
        private int ownerRank = UNKNOWN;
        private String bindingClass;
        private String name;
        private boolean predefined;
        private Lifecycle state = Lifecycle.ACTIVE;
        private int refCount;
        private long[] heldBy = NO_LONGS;
        private long cHandle;
        private boolean hasCHandle;
        private boolean leaked;
        private List<String> creationStack = List.of();
        private int rank = UNKNOWN;
        private int size = UNKNOWN;
        // an array as given (copied at build) or a shared list; the one set last counts
        private int[] members = NO_INTS;
        private MemberList membersList = MemberList.EMPTY;
        private boolean inter;
        private int[] remoteMembers = NO_INTS;
        private MemberList remoteMembersList = MemberList.EMPTY;
        private Topology topology;
        private long errhandler = NONE;
        private long group = NONE;
        private long derivedFrom = NONE;
        private long[] communicators = NO_LONGS;
        private String creatingCall;
        private int peer = UNKNOWN;
        private int tag = UNKNOWN;
        private long communicator = NONE;
        private boolean persistent;
        private boolean complete;
        private String constructor;
        private Map<String, String> infoPairs = Map.of();
        private int infoPairCount = UNKNOWN;
        private boolean hasInfoPairs;
        private long createdWithInfo = NONE;
        private long[] usedBy = NO_LONGS;
        private String fileName;
        private int accessMode = UNKNOWN;
        private String accessModeFlags;
        private Map<Integer, String> attributes = Map.of();
        private long[] windows = NO_LONGS;
        private long[] files = NO_LONGS;
        private boolean committed;
        private long typeSize = UNKNOWN;
        private long extent = UNKNOWN;
        private long lowerBound = UNKNOWN;
        private long[] parents = NO_LONGS;
        private List<TypeArgument> typeArguments = List.of();
        private long windowSize = UNKNOWN;
        private int displacementUnit = UNKNOWN;
        private long[] attachedTo = NO_LONGS;

        private Builder(long id, HandleKind kind) {
            this.id = id;
            this.kind = kind;
        }

        public Builder ownerRank(int v) { ownerRank = v; return this; }
        public Builder bindingClass(String v) { bindingClass = v; return this; }
        public Builder name(String v) { name = v; return this; }
        public Builder predefined(boolean v) { predefined = v; return this; }
        public Builder state(Lifecycle v) { state = v; return this; }
        public Builder refCount(int v) { refCount = v; return this; }
        public Builder heldBy(long[] v) { heldBy = v; return this; }
        public Builder cHandle(long v) { cHandle = v; hasCHandle = true; return this; }
        public Builder leaked(boolean v) { leaked = v; return this; }
        public Builder creationStack(List<String> v) { creationStack = v; return this; }
        public Builder rank(int v) { rank = v; return this; }
        public Builder size(int v) { size = v; return this; }
        public Builder members(int[] v) { members = v; membersList = null; return this; }
        /** Shares the list (no copy). */
        public Builder members(MemberList v) { membersList = Objects.requireNonNull(v, "members"); return this; }
        public Builder inter(boolean v) { inter = v; return this; }
        public Builder remoteMembers(int[] v) { remoteMembers = v; remoteMembersList = null; return this; }
        public Builder remoteMembers(MemberList v) { remoteMembersList = Objects.requireNonNull(v, "remoteMembers"); return this; }
        public Builder topology(Topology v) { topology = v; return this; }
        public Builder errhandler(long v) { errhandler = v; return this; }
        public Builder group(long v) { group = v; return this; }
        public Builder derivedFrom(long v) { derivedFrom = v; return this; }
        public Builder creatingCall(String v) { creatingCall = v; return this; }
        public Builder peer(int v) { peer = v; return this; }
        public Builder tag(int v) { tag = v; return this; }
        public Builder communicator(long v) { communicator = v; return this; }
        public Builder persistent(boolean v) { persistent = v; return this; }
        public Builder complete(boolean v) { complete = v; return this; }
        public Builder constructor(String v) { constructor = v; return this; }
        public Builder committed(boolean v) { committed = v; return this; }
        public Builder typeSize(long v) { typeSize = v; return this; }
        public Builder extent(long v) { extent = v; return this; }
        public Builder lowerBound(long v) { lowerBound = v; return this; }
        public Builder parents(long[] v) { parents = v; return this; }
        public Builder communicators(long[] v) { communicators = v; return this; }
        public Builder typeArguments(List<TypeArgument> v) { typeArguments = v; return this; }
        public Builder windowSize(long v) { windowSize = v; return this; }
        public Builder displacementUnit(int v) { displacementUnit = v; return this; }
        public Builder attachedTo(long[] v) { attachedTo = v; return this; }
        /** Pairs kept and their full count ({@link #UNKNOWN}: as many as kept); also marks them as recorded. */
        public Builder infoPairs(Map<String, String> v, int count) { infoPairs = v; infoPairCount = count; hasInfoPairs = true; return this; }
        public Builder createdWithInfo(long v) { createdWithInfo = v; return this; }
        public Builder usedBy(long[] v) { usedBy = v; return this; }
        public Builder fileName(String v) { fileName = v; return this; }
        public Builder accessMode(int mode, String flags) { accessMode = mode; accessModeFlags = flags; return this; }
        public Builder attributes(Map<Integer, String> v) { attributes = v; return this; }
        public Builder windows(long[] v) { windows = v; return this; }
        public Builder files(long[] v) { files = v; return this; }

        public HandleInfo build() {
            return new HandleInfo(this);
        }
    }
}
