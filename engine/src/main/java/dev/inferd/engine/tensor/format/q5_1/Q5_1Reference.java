package dev.inferd.engine.tensor.format.q5_1;

import dev.inferd.engine.tensor.format.q5_0.Q5_0Reference;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * ggml's reference Q5_1 decoding and quantization ({@code dequantize_row_q5_1}, {@code quantize_row_q5_1_ref}):
 * the same operations in the same order, so the same float rounding.
 */
public final class Q5_1Reference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    private Q5_1Reference() {
    }

    // d, m, 32 high bits, 16 bytes of nibbles; x = q * d + m
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), m = half(s, block + 2);
        int qh = s.get(U32, block + 4);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 8 + j);
            int lo = (q & 0xF) | (((qh >>> j) << 4) & 0x10);
            int hi = (q >>> 4) | ((qh >>> (j + 12)) & 0x10);
            out[o + j] = lo * d + m;
            out[o + j + 16] = hi * d + m;
        }
    }

    // d = (max - min) / 31, m = min, q = (uint8)((x - min) / d + 0.5)
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        float min = Float.MAX_VALUE, max = -Float.MAX_VALUE;
        for (int j = 0; j < 32; j++) {
            min = Math.min(min, x[from + j]);
            max = Math.max(max, x[from + j]);
        }
        float d = (max - min) / 31;
        float id = d != 0 ? 1.0f / d : 0.0f;
        int[] q = new int[32];
        for (int j = 0; j < 32; j++) q[j] = ((int) ((x[from + j] - min) * id + 0.5f)) & 0xFF;
        out.putShort(Float.floatToFloat16(d));
        out.putShort(Float.floatToFloat16(min));
        Q5_0Reference.putFiveBits(q, out);
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
