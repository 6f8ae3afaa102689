package io.mpilens.agent.registry;

/**
 * What the weaver adds to the root class of each handle hierarchy that declares the binding's
 * native handle field (Open MPI's {@code long handle}; {@code BindingProfile.nativeHandleField}):
 * a getter of that field, read where a handle is described or checked against its null handle,
 * instead of the field looked up by reflection per class. Classes woven without it (a late
 * attach) keep the reflective way.
 */
public interface NativeHandle {
    long mpilens$handle();
}
