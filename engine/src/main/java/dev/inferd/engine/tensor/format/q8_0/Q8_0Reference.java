package dev.inferd.engine.tensor.format.q8_0;

import java.nio.ByteBuffer;

/**
 * ggml's reference Q8_0 quantization ({@code quantize_row_q8_0_ref}): {@code d = amax / 127},
 * {@code q = round(x / d)}, half away from zero as C's {@code roundf}.
 */
public final class Q8_0Reference {
    private Q8_0Reference() {
    }

    // d = amax / 127, q = roundf(x / d) (rounding half away from zero, like C's roundf)
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        float amax = 0;
        for (int j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[from + j]));
        float d = amax / 127;
        float id = d != 0 ? 1.0f / d : 0.0f;
        out.putShort(Float.floatToFloat16(d));
        for (int j = 0; j < 32; j++) out.put((byte) roundHalfAwayFromZero(x[from + j] * id));
    }

    private static int roundHalfAwayFromZero(float v) {
        return (int) Math.copySign(Math.floor(Math.abs((double) v) + 0.5), v);
    }
}
