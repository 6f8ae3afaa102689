package io.mpilens.api.target;

import java.util.List;
import java.util.Map;

/**
 * What a debugger or a heap dump can say about a target beyond {@link TargetReader}'s field and
 * array reads: which objects of a class exist, which loader defined a class, which statics it
 * declares. Used to read an MPI binding's own objects when no mpilens agent ran in the target
 * (agentless mode). Still reads only: nothing here runs code in the target.
 */
public interface HeapInstances {
    /**
     * The objects of each class and of its subclasses, in one go (a heap dump answers all of them
     * in one pass over the file), at most {@code limit} objects in all.
     */
    Found instancesOf(List<TargetClass> types, int limit);

    /** An identity of the class's defining loader: equal for classes that one loader defined. */
    Object definingLoader(TargetClass type);

    /** Names of the static fields the class itself declares. */
    List<String> staticFieldNames(TargetClass type);

    /** Objects by the class they were asked for; {@code beyondLimit} were there but not returned. */
    final class Found {
        private final Map<TargetClass, List<TargetObject>> byType;
        private final long beyondLimit;

        public Found(Map<TargetClass, List<TargetObject>> byType, long beyondLimit) {
            this.byType = byType;
            this.beyondLimit = beyondLimit;
        }

        public List<TargetObject> of(TargetClass type) {
            return byType.getOrDefault(type, List.of());
        }

        public long beyondLimit() {
            return beyondLimit;
        }
    }
}
