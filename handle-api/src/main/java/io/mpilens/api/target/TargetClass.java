package io.mpilens.api.target;

/** A class loaded in the target; opaque outside its {@link TargetReader}. */
public interface TargetClass {
    String name();
}
