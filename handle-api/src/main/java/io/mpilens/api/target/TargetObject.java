package io.mpilens.api.target;

/** An object in the target's heap; opaque outside its {@link TargetReader}. */
public interface TargetObject {
    /** Binary name of the object's class, e.g. {@code [J} for a long array. */
    String typeName();
}
