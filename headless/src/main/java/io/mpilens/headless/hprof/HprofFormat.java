package io.mpilens.headless.hprof;

/** Tags and basic types of the HPROF format (JDK's heapDumper.cpp, "JAVA PROFILE 1.0.2"). */
final class HprofFormat {
    private HprofFormat() {
    }

    // top-level records
    static final int UTF8 = 0x01;
    static final int LOAD_CLASS = 0x02;
    static final int HEAP_DUMP = 0x0C;
    static final int HEAP_DUMP_SEGMENT = 0x1C;
    /** HotSpot writes it after the last heap dump segment (a dump of one HEAP_DUMP record has none). */
    static final int HEAP_DUMP_END = 0x2C;

    // heap dump sub-records
    static final int ROOT_UNKNOWN = 0xFF;
    static final int ROOT_JNI_GLOBAL = 0x01;
    static final int ROOT_JNI_LOCAL = 0x02;
    static final int ROOT_JAVA_FRAME = 0x03;
    static final int ROOT_NATIVE_STACK = 0x04;
    static final int ROOT_STICKY_CLASS = 0x05;
    static final int ROOT_THREAD_BLOCK = 0x06;
    static final int ROOT_MONITOR_USED = 0x07;
    static final int ROOT_THREAD_OBJECT = 0x08;
    static final int CLASS_DUMP = 0x20;
    static final int INSTANCE_DUMP = 0x21;
    static final int OBJ_ARRAY_DUMP = 0x22;
    static final int PRIM_ARRAY_DUMP = 0x23;

    // basic types
    static final int OBJECT = 2;
    static final int BOOLEAN = 4;
    static final int CHAR = 5;
    static final int FLOAT = 6;
    static final int DOUBLE = 7;
    static final int BYTE = 8;
    static final int SHORT = 9;
    static final int INT = 10;
    static final int LONG = 11;

    /** Size in bytes of a value of a basic type, -1 for a byte that is no basic type. */
    static int sizeOf(int type, int idSize) {
        switch (type) {
            case OBJECT: return idSize;
            case BOOLEAN: case BYTE: return 1;
            case CHAR: case SHORT: return 2;
            case FLOAT: case INT: return 4;
            case DOUBLE: case LONG: return 8;
            default: return -1;
        }
    }

    /** The JVM's descriptor letter of a primitive array's element type: {@code [J} for long[]. */
    static String primitiveArrayName(int type) {
        switch (type) {
            case BOOLEAN: return "[Z";
            case CHAR: return "[C";
            case FLOAT: return "[F";
            case DOUBLE: return "[D";
            case BYTE: return "[B";
            case SHORT: return "[S";
            case INT: return "[I";
            case LONG: return "[J";
            default: return "[?";
        }
    }
}
