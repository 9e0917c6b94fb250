package dev.inferd.engine.tensor.format.iq4_xs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * ggml's reference IQ4_XS decoding ({@code dequantize_row_iq4_xs}: the same operations in the same order, so the
 * same float rounding), which the kernels must equal bit for bit.
 */
public final class IQ4_XSReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private IQ4_XSReference() {
    }

    /** The 16 levels of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl): denser near zero. */
    public static final byte[] LEVELS = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

    /** IQ4_XS sub-block {@code ib}'s 6-bit scale minus 32: low 4 bits in scales_l nibbles, high 2 in scales_h. */
    public static int scale(MemorySegment s, long block, int ib) {
        int scalesH = s.get(HALF, block + 2) & 0xFFFF;
        int low = (u8(s, block + 4 + ib / 2) >>> (4 * (ib % 2))) & 0xF;
        return (low | (((scalesH >>> (2 * ib)) & 3) << 4)) - 32;
    }

    // d, scales_h, scales_l[4], qs[128]: 8 sub-blocks of 32 laid out like IQ4_NL, each with its own scale
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block);
        for (int ib = 0; ib < 8; ib++) {
            float dl = d * scale(s, block, ib);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, block + 8 + 16 * ib + j);
                out[o + 32 * ib + j] = dl * LEVELS[q & 0xF];
                out[o + 32 * ib + j + 16] = dl * LEVELS[q >>> 4];
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
