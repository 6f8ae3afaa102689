package io.mpilens.headless.hprof;

/**
 * Where one object of the dump is: an instance (its field bytes kept), an object array or a
 * primitive array (elements at {@code dataOffset} in an uncompressed dump, or kept in
 * {@code data} for a compressed one).
 *
 * @param classId    class of an instance or an object array; 0 for a primitive array
 * @param elementType HPROF basic type of a primitive array's elements
 * @param length     elements of an array, field bytes of an instance
 */
record HeapRecord(long id, Kind kind, long classId, int elementType, int length, long dataOffset, byte[] data) {
    enum Kind { INSTANCE, OBJECT_ARRAY, PRIMITIVE_ARRAY }
}
