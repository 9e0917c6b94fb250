package dev.inferd.engine.tensor.format.iq4_nl;

import dev.inferd.engine.tensor.format.iq4_xs.IQ4_XSReference;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * ggml's reference IQ4_NL decoding ({@code dequantize_row_iq4_nl}: the same operations in the same order, so the
 * same float rounding), which the kernels must equal bit for bit.
 */
public final class IQ4_NLReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private IQ4_NLReference() {
    }

    // d, 16 bytes of nibbles indexing IQ4_XSReference.LEVELS (low nibbles values 0-15, high 16-31); x = d * level
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 2 + j);
            out[o + j] = d * IQ4_XSReference.LEVELS[q & 0xF];
            out[o + j + 16] = d * IQ4_XSReference.LEVELS[q >>> 4];
        }
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
