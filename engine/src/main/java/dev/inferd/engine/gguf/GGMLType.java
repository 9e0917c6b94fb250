package dev.inferd.engine.gguf;

/**
 * Tensor element types as numbered in GGUF files (ggml's {@code ggml_type}). A quantized type packs
 * {@link #blockSize()} elements into {@link #blockBytes()} bytes.
 */
public enum GGMLType {
    F32(0, 1, 4),
    F16(1, 1, 2),
    Q4_0(2, 32, 18),
    Q4_1(3, 32, 20),
    Q5_0(6, 32, 22),
    Q5_1(7, 32, 24),
    Q8_0(8, 32, 34),
    Q8_1(9, 32, 36),
    Q2_K(10, 256, 84),
    Q3_K(11, 256, 110),
    Q4_K(12, 256, 144),
    Q5_K(13, 256, 176),
    Q6_K(14, 256, 210),
    Q8_K(15, 256, 292),
    IQ2_XXS(16, 256, 66),
    IQ2_XS(17, 256, 74),
    IQ3_XXS(18, 256, 98),
    IQ1_S(19, 256, 50),
    IQ4_NL(20, 32, 18),
    IQ3_S(21, 256, 110),
    IQ2_S(22, 256, 82),
    IQ4_XS(23, 256, 136),
    I8(24, 1, 1),
    I16(25, 1, 2),
    I32(26, 1, 4),
    I64(27, 1, 8),
    F64(28, 1, 8),
    IQ1_M(29, 256, 56),
    BF16(30, 1, 2);

    private static final GGMLType[] BY_ID = new GGMLType[64];

    static {
        for (GGMLType t : values()) BY_ID[t.id] = t;
    }

    private final int id;
    private final int blockSize;
    private final int blockBytes;

    GGMLType(int id, int blockSize, int blockBytes) {
        this.id = id;
        this.blockSize = blockSize;
        this.blockBytes = blockBytes;
    }

    public int id() { return id; }

    /** Elements per block. */
    public int blockSize() { return blockSize; }

    /** Bytes per block. */
    public int blockBytes() { return blockBytes; }

    /** Bytes taken by {@code elements} elements; {@code elements} must be a whole number of blocks. */
    public long bytesFor(long elements) {
        if (elements % blockSize != 0) {
            throw new IllegalArgumentException(elements + " elements is not a whole number of " + this + " blocks");
        }
        return elements / blockSize * blockBytes;
    }

    public static GGMLType fromId(int id) {
        GGMLType t = id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
        if (t == null) throw new GGUFFormatException("unknown tensor type id " + id);
        return t;
    }
}
