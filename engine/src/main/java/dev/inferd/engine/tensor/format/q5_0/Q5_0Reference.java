package dev.inferd.engine.tensor.format.q5_0;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * ggml's reference Q5_0 decoding and quantization ({@code dequantize_row_q5_0}, {@code quantize_row_q5_0_ref}):
 * the same operations in the same order, so the same float rounding.
 */
public final class Q5_0Reference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    private Q5_0Reference() {
    }

    // d, 32 high bits (bit j is value j's fifth bit), 16 bytes of nibbles; x = (q - 16) * d
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block);
        int qh = s.get(U32, block + 2);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 6 + j);
            int lo = (q & 0xF) | (((qh >>> j) << 4) & 0x10);
            int hi = (q >>> 4) | ((qh >>> (j + 12)) & 0x10);
            out[o + j] = (lo - 16) * d;
            out[o + j + 16] = (hi - 16) * d;
        }
    }

    // d = (the value of largest magnitude, signed) / -16, q = min(31, (int8)(x / d + 16.5))
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        float amax = 0, max = 0;
        for (int j = 0; j < 32; j++) {
            float v = x[from + j];
            if (amax < Math.abs(v)) {
                amax = Math.abs(v);
                max = v;
            }
        }
        float d = max / -16;
        float id = d != 0 ? 1.0f / d : 0.0f;
        int[] q = new int[32];
        for (int j = 0; j < 32; j++) q[j] = Math.min(31, (byte) (int) (x[from + j] * id + 16.5f));
        out.putShort(Float.floatToFloat16(d));
        putFiveBits(q, out);
    }

    /** The 32 fifth bits as a little-endian word, then the low nibbles (values 0-15 low, 16-31 high). */
    public static void putFiveBits(int[] q, ByteBuffer out) {
        int qh = 0;
        for (int j = 0; j < 16; j++) {
            qh |= ((q[j] & 0x10) >>> 4) << j;
            qh |= ((q[j + 16] & 0x10) >>> 4) << (j + 16);
        }
        out.putInt(qh);
        for (int j = 0; j < 16; j++) out.put((byte) ((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4)));
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
