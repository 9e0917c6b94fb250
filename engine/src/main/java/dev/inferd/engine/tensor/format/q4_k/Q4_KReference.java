package dev.inferd.engine.tensor.format.q4_k;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Q4_K's reference decoding, ggml's ({@code dequantize_row_q4_K}: the same operations in the same order, so
 * the same float rounding), and a plain one-pass quantization (per-sub-block range, then 6-bit scales against the
 * super-block's largest), not ggml's iterative search: valid blocks with a small error, for test and benchmark models.
 */
public final class Q4_KReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q4_KReference() {
    }

    /** Q4_K/Q5_K sub-block {@code j}'s 6-bit scale (low 8 bits of the result) and min (bits 8-15). */
    public static int scaleMin(MemorySegment s, long scales, int j) {
        int sc, m;
        if (j < 4) {
            sc = u8(s, scales + j) & 63;
            m = u8(s, scales + j + 4) & 63;
        } else {
            sc = (u8(s, scales + j + 4) & 0xF) | ((u8(s, scales + j - 4) >>> 6) << 4);
            m = (u8(s, scales + j + 4) >>> 4) | ((u8(s, scales + j) >>> 6) << 4);
        }
        return sc | (m << 8);
    }

    // d, dmin, scales[12], qs[128]: 64 values per 32 bytes, low nibbles first; x = d*sc * q - dmin*m
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), min = half(s, block + 2);
        for (int p = 0; p < 4; p++) {
            int sm1 = scaleMin(s, block + 4, 2 * p), sm2 = scaleMin(s, block + 4, 2 * p + 1);
            float d1 = d * (sm1 & 0xFF), m1 = min * (sm1 >>> 8);
            float d2 = d * (sm2 & 0xFF), m2 = min * (sm2 >>> 8);
            for (int l = 0; l < 32; l++) {
                int q = u8(s, block + 16 + 32 * p + l);
                out[o + 64 * p + l] = d1 * (q & 0xF) - m1;
                out[o + 64 * p + 32 + l] = d2 * (q >>> 4) - m2;
            }
        }
    }

    /** A Q4_K block of {@code x[from ..+ 256)}. */
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
        quantizeBlock(x, from, out, 15);
    }

    /** Q4_K ({@code nmax} 15) or Q5_K (31). */
    // per 32 values: scale = range / nmax, min = -min(0, smallest); both to 6 bits against the largest
    public static void quantizeBlock(float[] x, int from, ByteBuffer out, int nmax) {
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

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
