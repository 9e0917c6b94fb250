package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Encoders for the block types beyond Q8_0/Q4_0, for test and benchmark models.
 *
 * <p>Q4_1, Q5_0 and Q5_1 follow ggml's {@code quantize_row_*_ref} rounding exactly. Q4_K, Q5_K and Q6_K
 * use a plain one-pass rounding (per-sub-block range, then 6- or 8-bit scales against the super-block's
 * largest), not ggml's iterative search: valid blocks with a small error, not llama-quantize's bytes.
 * {@link #randomBlocks} makes valid blocks of every type from random bits.
 */
final class MoreQuantizers {
    private MoreQuantizers() {
    }

    static boolean canQuantize(GGMLType type) {
        return switch (type) {
            case Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K -> true;
            default -> false;
        };
    }

    static void quantize(GGMLType type, float[] x, int offset, int count, ByteBuffer out) {
        for (int b = 0; b < count; b += type.blockSize()) {
            int from = offset + b;
            switch (type) {
                case Q4_1 -> q4_1(x, from, out);
                case Q5_0 -> q5_0(x, from, out);
                case Q5_1 -> q5_1(x, from, out);
                case Q4_K -> q4_KOr5_K(x, from, out, 15);
                case Q5_K -> q4_KOr5_K(x, from, out, 31);
                case Q6_K -> q6_K(x, from, out);
                default -> throw new UnsupportedOperationException("no quantizer for tensor type " + type);
            }
        }
    }

    // d = (max - min) / 15, m = min, q = min(15, (int8)((x - min) / d + 0.5))
    private static void q4_1(float[] x, int from, ByteBuffer out) {
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

    // d = (the value of largest magnitude, signed) / -16, q = min(31, (int8)(x / d + 16.5))
    private static void q5_0(float[] x, int from, ByteBuffer out) {
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

    // d = (max - min) / 31, m = min, q = (uint8)((x - min) / d + 0.5)
    private static void q5_1(float[] x, int from, ByteBuffer out) {
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
        putFiveBits(q, out);
    }

    /** The 32 fifth bits as a little-endian word, then the low nibbles (values 0-15 low, 16-31 high). */
    private static void putFiveBits(int[] q, ByteBuffer out) {
        int qh = 0;
        for (int j = 0; j < 16; j++) {
            qh |= ((q[j] & 0x10) >>> 4) << j;
            qh |= ((q[j + 16] & 0x10) >>> 4) << (j + 16);
        }
        out.putInt(qh);
        for (int j = 0; j < 16; j++) out.put((byte) ((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4)));
    }

    // per 32 values: scale = range / nmax, min = -min(0, smallest); both to 6 bits against the largest
    private static void q4_KOr5_K(float[] x, int from, ByteBuffer out, int nmax) {
        float[] scales = new float[8];
        float[] mins = new float[8];
        float maxScale = 0, maxMin = 0;
        for (int j = 0; j < 8; j++) {
            float lo = 0, hi = -Float.MAX_VALUE;
            for (int l = 0; l < 32; l++) {
                lo = Math.min(lo, x[from + 32 * j + l]);
                hi = Math.max(hi, x[from + 32 * j + l]);
            }
            scales[j] = (hi - lo) / nmax;
            mins[j] = -lo;
            maxScale = Math.max(maxScale, scales[j]);
            maxMin = Math.max(maxMin, mins[j]);
        }
        float invScale = maxScale > 0 ? 63f / maxScale : 0f;
        float invMin = maxMin > 0 ? 63f / maxMin : 0f;
        byte[] packed = new byte[12];
        int[] ls = new int[8], lm = new int[8];
        for (int j = 0; j < 8; j++) {
            ls[j] = Math.min(63, Math.round(invScale * scales[j]));
            lm[j] = Math.min(63, Math.round(invMin * mins[j]));
            if (j < 4) {
                packed[j] = (byte) ls[j];
                packed[j + 4] = (byte) lm[j];
            } else {
                packed[j + 4] = (byte) ((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
                packed[j - 4] |= (byte) ((ls[j] >>> 4) << 6);
                packed[j] |= (byte) ((lm[j] >>> 4) << 6);
            }
        }
        short dHalf = Float.floatToFloat16(maxScale / 63f), dminHalf = Float.floatToFloat16(maxMin / 63f);
        float d = Float.float16ToFloat(dHalf), dmin = Float.float16ToFloat(dminHalf);
        int[] q = new int[256];
        for (int j = 0; j < 8; j++) {
            float dl = d * ls[j], ml = dmin * lm[j];
            for (int l = 0; l < 32; l++) {
                int v = dl == 0 ? 0 : Math.round((x[from + 32 * j + l] + ml) / dl);
                q[32 * j + l] = Math.clamp(v, 0, nmax);
            }
        }
        out.putShort(dHalf);
        out.putShort(dminHalf);
        out.put(packed);
        if (nmax == 31) {
            byte[] qh = new byte[32];
            for (int p = 0; p < 4; p++) {
                for (int l = 0; l < 32; l++) {
                    qh[l] |= (byte) (((q[64 * p + l] >>> 4) & 1) << (2 * p));
                    qh[l] |= (byte) (((q[64 * p + 32 + l] >>> 4) & 1) << (2 * p + 1));
                }
            }
            out.put(qh);
        }
        for (int p = 0; p < 4; p++) {
            for (int l = 0; l < 32; l++) out.put((byte) ((q[64 * p + l] & 0xF) | ((q[64 * p + 32 + l] & 0xF) << 4)));
        }
    }

    // per 16 values: scale = (value of largest magnitude, signed) / -32; scales to int8 against the largest
    private static void q6_K(float[] x, int from, ByteBuffer out) {
        float[] scales = new float[16];
        float maxScale = 0, amaxScale = 0;
        for (int j = 0; j < 16; j++) {
            float amax = 0, max = 0;
            for (int l = 0; l < 16; l++) {
                float v = x[from + 16 * j + l];
                if (amax < Math.abs(v)) {
                    amax = Math.abs(v);
                    max = v;
                }
            }
            scales[j] = max / -32;
            if (amaxScale < Math.abs(scales[j])) {
                amaxScale = Math.abs(scales[j]);
                maxScale = scales[j];
            }
        }
        float iscale = maxScale != 0 ? -128f / maxScale : 0f;
        short dHalf = Float.floatToFloat16(iscale != 0 ? 1 / iscale : 0);
        float d = Float.float16ToFloat(dHalf);
        byte[] sc = new byte[16];
        int[] q = new int[256];
        for (int j = 0; j < 16; j++) {
            sc[j] = (byte) Math.min(127, Math.round(iscale * scales[j]));
            float dl = d * sc[j];
            for (int l = 0; l < 16; l++) {
                int v = dl == 0 ? 0 : Math.round(x[from + 16 * j + l] / dl);
                q[16 * j + l] = Math.clamp(v, -32, 31) + 32;
            }
        }
        byte[] ql = new byte[128], qh = new byte[64];
        for (int n = 0; n < 2; n++) {
            for (int l = 0; l < 32; l++) {
                int q1 = q[128 * n + l], q2 = q[128 * n + 32 + l], q3 = q[128 * n + 64 + l], q4 = q[128 * n + 96 + l];
                ql[64 * n + l] = (byte) ((q1 & 0xF) | ((q3 & 0xF) << 4));
                ql[64 * n + 32 + l] = (byte) ((q2 & 0xF) | ((q4 & 0xF) << 4));
                qh[32 * n + l] = (byte) ((q1 >>> 4) | ((q2 >>> 4) << 2) | ((q3 >>> 4) << 4) | ((q4 >>> 4) << 6));
            }
        }
        out.put(ql);
        out.put(qh);
        out.put(sc);
        out.putShort(dHalf);
    }

    /**
     * {@code blocks} blocks of {@code type} with random quantized bits and scales chosen so that the
     * values lie within about {@code ±scale}.
     */
    static byte[] randomBlocks(GGMLType type, int blocks, long seed, float scale) {
        var random = new SplittableRandom(seed);
        byte[] bytes = new byte[Math.multiplyExact(blocks, type.blockBytes())];
        random.nextBytes(bytes);
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int b = 0; b < blocks; b++) {
            int at = b * type.blockBytes();
            switch (type) {
                case Q8_0 -> putHalf(buf, at, scale / 128);
                case Q4_0 -> putHalf(buf, at, scale / 8);
                case Q4_1 -> { putHalf(buf, at, scale / 8); putHalf(buf, at + 2, -scale); }
                case Q5_0 -> putHalf(buf, at, scale / 16);
                case Q5_1 -> { putHalf(buf, at, scale / 16); putHalf(buf, at + 2, -scale); }
                case IQ4_NL -> putHalf(buf, at, scale / 127);
                case Q2_K -> { putHalf(buf, at + 80, 2 * scale / 45); putHalf(buf, at + 82, scale / 15); }
                case Q3_K -> putHalf(buf, at + 108, scale / 128);
                case Q4_K -> { putHalf(buf, at, 2 * scale / (63 * 15)); putHalf(buf, at + 2, scale / 63); }
                case Q5_K -> { putHalf(buf, at, 2 * scale / (63 * 31)); putHalf(buf, at + 2, scale / 63); }
                case Q6_K -> putHalf(buf, at + 208, scale / (128 * 32));
                case IQ4_XS -> putHalf(buf, at, scale / (32 * 127));
                default -> throw new UnsupportedOperationException("no random blocks for tensor type " + type);
            }
        }
        return bytes;
    }

    private static void putHalf(ByteBuffer buf, int at, float value) {
        buf.putShort(at, Float.floatToFloat16(value));
    }
}
