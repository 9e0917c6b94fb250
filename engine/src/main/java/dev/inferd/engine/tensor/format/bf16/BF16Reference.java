package dev.inferd.engine.tensor.format.bf16;


/**
 * bfloat16 conversions as ggml does them.
 */
public final class BF16Reference {
    private BF16Reference() {
    }

    /** bf16 with round-to-nearest-even, NaN kept quiet (ggml_compute_fp32_to_bf16). */
    public static short floatToBf16(float f) {
        int u = Float.floatToRawIntBits(f);
        if ((u & 0x7fffffff) > 0x7f800000) return (short) ((u >>> 16) | 64);
        return (short) ((u + (0x7fff + ((u >>> 16) & 1))) >>> 16);
    }

    public static float bf16ToFloat(short h) {
        return Float.intBitsToFloat((h & 0xFFFF) << 16);
    }
}
