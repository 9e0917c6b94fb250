package dev.inferd.engine.tensor.format.q2_k;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * ggml's reference Q2_K decoding ({@code dequantize_row_q2_K}: the same operations in the same order, so the
 * same float rounding), which the kernels must equal bit for bit.
 */
public final class Q2_KReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q2_KReference() {
    }

    // scales[16] (low nibble scale, high nibble min), qs[64] (2 bits), d, dmin. Value 128n + 32j + l
    // takes bits 2j of qs[32n + l] and the scale byte 8n + 2j + l/16; x = d*sc * q - dmin*m
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block + 80), min = half(s, block + 82);
        for (int n = 0; n < 2; n++) {
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++) {
                    int sc = u8(s, block + 8 * n + 2 * j + half);
                    float dl = d * (sc & 0xF), ml = min * (sc >>> 4);
                    for (int l = 16 * half; l < 16 * half + 16; l++) {
                        int q = (u8(s, block + 16 + 32 * n + l) >>> (2 * j)) & 3;
                        out[o + 128 * n + 32 * j + l] = dl * q - ml;
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
