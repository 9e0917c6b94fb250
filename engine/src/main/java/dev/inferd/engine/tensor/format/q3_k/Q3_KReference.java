package dev.inferd.engine.tensor.format.q3_k;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * ggml's reference Q3_K decoding ({@code dequantize_row_q3_K}: the same operations in the same order, so the
 * same float rounding), which the kernels must equal bit for bit.
 */
public final class Q3_KReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q3_KReference() {
    }

    /** Q3_K's 16 six-bit scales, minus 32: low 4 bits in bytes 0-7 (nibbles), high 2 bits in bytes 8-11. */
    public static int scale(MemorySegment s, long scales, int i) {
        int low = i < 8 ? u8(s, scales + i) & 0xF : u8(s, scales + i - 8) >>> 4;
        int high = (u8(s, scales + 8 + i % 4) >>> (2 * (i / 4))) & 3;
        return (low | (high << 4)) - 32;
    }

    // hmask[32], qs[64], scales[12], d. Value 128n + 32j + l: 2 bits 2j of qs[32n + l], high bit
    // (4n + j) of hmask[l] (a clear bit subtracts 4), scale 8n + 2j + l/16; x = d*sc * q
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float dAll = half(s, block + 108);
        for (int n = 0; n < 2; n++) {
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++) {
                    float dl = dAll * scale(s, block + 96, 8 * n + 2 * j + half);
                    for (int l = 16 * half; l < 16 * half + 16; l++) {
                        int q = (u8(s, block + 32 + 32 * n + l) >>> (2 * j)) & 3;
                        int high = (u8(s, block + l) >>> (4 * n + j)) & 1;
                        out[o + 128 * n + 32 * j + l] = dl * (q - (high != 0 ? 0 : 4));
                    }
                }
            }
        }
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
