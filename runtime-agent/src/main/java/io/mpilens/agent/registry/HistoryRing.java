package io.mpilens.agent.registry;

/**
 * Writes the released-history ring: one entry per released handle (and per released request
 * while request history is on), into the registry root's published {@code histCount} and
 * {@code h*} columns; entry i lives at {@code i % capacity}, stamped as a row is. Called under
 * the root's lock only.
 */
final class HistoryRing {
    private HistoryRing() {}

    static void record(HandleRegistry root, long hid, byte hkind, int howner, int hname, int hcall, int hsite,
                       int hflags) {
        int h = (int) (root.histCount % root.hId.length);
        SlotStamps.begin(root.hStamp, h);
        root.hId[h] = hid;
        root.hKind[h] = hkind;
        root.hOwner[h] = howner;
        root.hName[h] = hname;
        root.hCall[h] = hcall;
        root.hSite[h] = hsite;
        root.hFlags[h] = hflags;
        SlotStamps.end(root.hStamp, h);
        root.histCount++;
    }
}
