package dev.inferd.engine.tensor.format.q5_k;

import dev.inferd.engine.tensor.format.q4_k.Q4_KReference;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Q5_K's reference decoding, ggml's ({@code dequantize_row_q5_K}), and Q4_K's plain one-pass quantization with
 * a fifth bit.
 */
public final class Q5_KReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q5_KReference() {
    }

    // d, dmin, scales[12], qh[32], qs[128]: as Q4_K plus a fifth bit, bit 2p (low) / 2p+1 (high) of qh[l]
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), min = half(s, block + 2);
        for (int p = 0; p < 4; p++) {
            int sm1 = Q4_KReference.scaleMin(s, block + 4, 2 * p), sm2 = Q4_KReference.scaleMin(s, block + 4, 2 * p + 1);
            float d1 = d * (sm1 & 0xFF), m1 = min * (sm1 >>> 8);
            float d2 = d * (sm2 & 0xFF), m2 = min * (sm2 >>> 8);
            for (int l = 0; l < 32; l++) {
                int q = u8(s, block + 48 + 32 * p + l);
                int h = u8(s, block + 16 + l);
                out[o + 64 * p + l] = d1 * ((q & 0xF) + (((h >>> (2 * p)) & 1) << 4)) - m1;
                out[o + 64 * p + 32 + l] = d2 * ((q >>> 4) + (((h >>> (2 * p + 1)) & 1) << 4)) - m2;
            }
        }
    }

    /** A Q5_K block of {@code x[from ..+ 256)}, rounded as Q4_K's with a fifth bit. */
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        Q4_KReference.quantizeBlock(x, from, out, 31);
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
