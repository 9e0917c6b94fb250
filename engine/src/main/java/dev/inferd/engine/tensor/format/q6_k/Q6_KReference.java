package dev.inferd.engine.tensor.format.q6_k;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Q6_K's reference decoding, ggml's ({@code dequantize_row_q6_K}), and a plain one-pass quantization (per-16-value
 * scales to int8 against the super-block's largest), not ggml's iterative search.
 */
public final class Q6_KReference {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;

    private Q6_KReference() {
    }

    // ql[128], qh[64], int8 scales[16], d. Per 128 values n: ql at 64n, qh at 32n, scales at 8n;
    // value 32k + l (k < 4) is nibble k/2 of ql[l + 32(k%2)] with bits 2k of qh[l] on top, minus 32
    public static void dequantizeBlock(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block + 208);
        for (int n = 0; n < 2; n++) {
            long ql = block + 64 * n, qh = block + 128 + 32 * n, sc = block + 192 + 8 * n;
            for (int l = 0; l < 32; l++) {
                int is = l / 16;
                int a = u8(s, ql + l), b = u8(s, ql + l + 32), h = u8(s, qh + l);
                int q1 = ((a & 0xF) | ((h & 3) << 4)) - 32;
                int q2 = ((b & 0xF) | (((h >>> 2) & 3) << 4)) - 32;
                int q3 = ((a >>> 4) | (((h >>> 4) & 3) << 4)) - 32;
                int q4 = ((b >>> 4) | (((h >>> 6) & 3) << 4)) - 32;
                int base = o + 128 * n + l;
                out[base] = d * s.get(ValueLayout.JAVA_BYTE, sc + is) * q1;
                out[base + 32] = d * s.get(ValueLayout.JAVA_BYTE, sc + is + 2) * q2;
                out[base + 64] = d * s.get(ValueLayout.JAVA_BYTE, sc + is + 4) * q3;
                out[base + 96] = d * s.get(ValueLayout.JAVA_BYTE, sc + is + 6) * q4;
            }
        }
    }

    // per 16 values: scale = (value of largest magnitude, signed) / -32; scales to int8 against the largest
    public static void quantizeBlock(float[] x, int from, ByteBuffer out) {
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

    private static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }
}
