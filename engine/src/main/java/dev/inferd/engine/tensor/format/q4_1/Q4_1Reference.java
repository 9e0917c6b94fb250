package dev.inferd.engine.tensor.format.q4_1;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * ggml's reference Q4_1 decoding and quantization ({@code dequantize_row_q4_1}, {@code quantize_row_q4_1_ref}):
 * the same operations in the same order, so the same float rounding.
 */
public final class Q4_1Reference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q4_1Reference() {
    }

    // d, m, 16 bytes of nibbles: low nibbles are values 0-15, high nibbles 16-31; x = q * d + m
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), m = half(s, block + 2);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 4 + j);
            out[o + j] = (q & 0xF) * d + m;
            out[o + j + 16] = (q >>> 4) * d + m;
        }
    }

    // d = (max - min) / 15, m = min, q = min(15, (int8)((x - min) / d + 0.5))
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        float min = Float.MAX_VALUE, max = -Float.MAX_VALUE;
        for (int j = 0; j < 32; j++) {
            min = Math.min(min, x[from + j]);
            max = Math.max(max, x[from + j]);
        }
        float d = (max - min) / 15;
        float id = d != 0 ? 1.0f / d : 0.0f;
        out.putShort(Float.floatToFloat16(d));
        out.putShort(Float.floatToFloat16(min));
        for (int j = 0; j < 16; j++) {
            int lo = Math.min(15, (byte) (int) ((x[from + j] - min) * id + 0.5f));
            int hi = Math.min(15, (byte) (int) ((x[from + 16 + j] - min) * id + 0.5f));
            out.put((byte) (lo | (hi << 4)));
        }
    }

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
