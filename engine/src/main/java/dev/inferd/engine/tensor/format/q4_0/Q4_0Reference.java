package dev.inferd.engine.tensor.format.q4_0;

import java.nio.ByteBuffer;

/**
 * ggml's reference Q4_0 quantization ({@code quantize_row_q4_0_ref}).
 */
public final class Q4_0Reference {
    private Q4_0Reference() {
    }

    // d = (the value of largest magnitude, with its sign) / -8, q = min(15, (int8)(x / d + 8.5))
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        float amax = 0;
        float max = 0;
        for (int j = 0; j < 32; j++) {
            float v = x[from + j];
            if (amax < Math.abs(v)) {
                amax = Math.abs(v);
                max = v;
            }
        }
        float d = max / -8;
        float id = d != 0 ? 1.0f / d : 0.0f;
        out.putShort(Float.floatToFloat16(d));
        for (int j = 0; j < 16; j++) {
            int lo = Math.min(15, truncateToInt8(x[from + j] * id + 8.5f));
            int hi = Math.min(15, truncateToInt8(x[from + 16 + j] * id + 8.5f));
            out.put((byte) (lo | (hi << 4)));
        }
    }

    // C's (int8_t) cast of a float: truncation toward zero (the value is always in [0, 17) here)
    private static int truncateToInt8(float v) {
        return (byte) (int) v;
    }
}
