package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Plain scalar decoding of the block types beyond Q8_0/Q4_0, written from ggml's block layouts
 * ({@code ggml-common.h}) and {@code dequantize_row_*} formulas, with the same operations in the same
 * order (so the same float rounding): the reference that the vectorized kernels are tested against.
 */
final class ReferenceDequantizer {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    /** The 16 levels of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl): denser near zero. */
    static final byte[] IQ4_LEVELS = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

    private ReferenceDequantizer() {
    }

    static boolean supports(GGMLType type) {
        return switch (type) {
            case Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS -> true;
            default -> false;
        };
    }

    /** Decodes {@code count} values (whole blocks) of {@code type} at {@code at} into {@code out[outOffset ..)}. */
    static void dequantize(GGMLType type, MemorySegment src, long at, int count, float[] out, int outOffset) {
        int blocks = count / type.blockSize();
        for (int b = 0; b < blocks; b++) {
            long block = at + (long) b * type.blockBytes();
            int o = outOffset + b * type.blockSize();
            switch (type) {
                case Q4_1 -> q4_1(src, block, out, o);
                case Q5_0 -> q5_0(src, block, out, o);
                case Q5_1 -> q5_1(src, block, out, o);
                case Q2_K -> q2_K(src, block, out, o);
                case Q3_K -> q3_K(src, block, out, o);
                case Q4_K -> q4_K(src, block, out, o);
                case Q5_K -> q5_K(src, block, out, o);
                case Q6_K -> q6_K(src, block, out, o);
                case IQ4_NL -> iq4_nl(src, block, out, o);
                case IQ4_XS -> iq4_xs(src, block, out, o);
                default -> throw new UnsupportedOperationException("no reference decoding for " + type);
            }
        }
    }

    static float half(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(HALF, at));
    }

    static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    // d, m, 16 bytes of nibbles: low nibbles are values 0-15, high nibbles 16-31; x = q * d + m
    private static void q4_1(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), m = half(s, block + 2);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 4 + j);
            out[o + j] = (q & 0xF) * d + m;
            out[o + j + 16] = (q >>> 4) * d + m;
        }
    }

    // d, 32 high bits (bit j is value j's fifth bit), 16 bytes of nibbles; x = (q - 16) * d
    private static void q5_0(MemorySegment s, long block, float[] out, int o) {
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

    // d, m, 32 high bits, 16 bytes of nibbles; x = q * d + m
    private static void q5_1(MemorySegment s, long block, float[] out, int o) {
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

    // scales[16] (low nibble scale, high nibble min), qs[64] (2 bits), d, dmin. Value 128n + 32j + l
    // takes bits 2j of qs[32n + l] and the scale byte 8n + 2j + l/16; x = d*sc * q - dmin*m
    private static void q2_K(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block + 80), min = half(s, block + 82);
        for (int n = 0; n < 2; n++) {
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++) {
                    int sc = u8(s, block + 8 * n + 2 * j + half);
                    float dl = d * (sc & 0xF), ml = min * (sc >>> 4);
                    for (int l = 16 * half; l < 16 * half + 16; l++) {
                        int q = (u8(s, block + 16 + 32 * n + l) >>> (2 * j)) & 3;
                        out[o + 128 * n + 32 * j + l] = dl * q - ml;
                    }
                }
            }
        }
    }

    /** Q3_K's 16 six-bit scales, minus 32: low 4 bits in bytes 0-7 (nibbles), high 2 bits in bytes 8-11. */
    static int q3_KScale(MemorySegment s, long scales, int i) {
        int low = i < 8 ? u8(s, scales + i) & 0xF : u8(s, scales + i - 8) >>> 4;
        int high = (u8(s, scales + 8 + i % 4) >>> (2 * (i / 4))) & 3;
        return (low | (high << 4)) - 32;
    }

    // hmask[32], qs[64], scales[12], d. Value 128n + 32j + l: 2 bits 2j of qs[32n + l], high bit
    // (4n + j) of hmask[l] (a clear bit subtracts 4), scale 8n + 2j + l/16; x = d*sc * q
    private static void q3_K(MemorySegment s, long block, float[] out, int o) {
        float dAll = half(s, block + 108);
        for (int n = 0; n < 2; n++) {
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++) {
                    float dl = dAll * q3_KScale(s, block + 96, 8 * n + 2 * j + half);
                    for (int l = 16 * half; l < 16 * half + 16; l++) {
                        int q = (u8(s, block + 32 + 32 * n + l) >>> (2 * j)) & 3;
                        int high = (u8(s, block + l) >>> (4 * n + j)) & 1;
                        out[o + 128 * n + 32 * j + l] = dl * (q - (high != 0 ? 0 : 4));
                    }
                }
            }
        }
    }

    /** Q4_K/Q5_K sub-block {@code j}'s 6-bit scale (low 8 bits of the result) and min (bits 8-15). */
    static int kScaleMin(MemorySegment s, long scales, int j) {
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
    private static void q4_K(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), min = half(s, block + 2);
        for (int p = 0; p < 4; p++) {
            int sm1 = kScaleMin(s, block + 4, 2 * p), sm2 = kScaleMin(s, block + 4, 2 * p + 1);
            float d1 = d * (sm1 & 0xFF), m1 = min * (sm1 >>> 8);
            float d2 = d * (sm2 & 0xFF), m2 = min * (sm2 >>> 8);
            for (int l = 0; l < 32; l++) {
                int q = u8(s, block + 16 + 32 * p + l);
                out[o + 64 * p + l] = d1 * (q & 0xF) - m1;
                out[o + 64 * p + 32 + l] = d2 * (q >>> 4) - m2;
            }
        }
    }

    // d, dmin, scales[12], qh[32], qs[128]: as Q4_K plus a fifth bit, bit 2p (low) / 2p+1 (high) of qh[l]
    private static void q5_K(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block), min = half(s, block + 2);
        for (int p = 0; p < 4; p++) {
            int sm1 = kScaleMin(s, block + 4, 2 * p), sm2 = kScaleMin(s, block + 4, 2 * p + 1);
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

    // ql[128], qh[64], int8 scales[16], d. Per 128 values n: ql at 64n, qh at 32n, scales at 8n;
    // value 32k + l (k < 4) is nibble k/2 of ql[l + 32(k%2)] with bits 2k of qh[l] on top, minus 32
    private static void q6_K(MemorySegment s, long block, float[] out, int o) {
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

    // d, 16 bytes of nibbles indexing IQ4_LEVELS (low nibbles values 0-15, high 16-31); x = d * level
    private static void iq4_nl(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block);
        for (int j = 0; j < 16; j++) {
            int q = u8(s, block + 2 + j);
            out[o + j] = d * IQ4_LEVELS[q & 0xF];
            out[o + j + 16] = d * IQ4_LEVELS[q >>> 4];
        }
    }

    /** IQ4_XS sub-block {@code ib}'s 6-bit scale minus 32: low 4 bits in scales_l nibbles, high 2 in scales_h. */
    static int iq4_xsScale(MemorySegment s, long block, int ib) {
        int scalesH = s.get(HALF, block + 2) & 0xFFFF;
        int low = (u8(s, block + 4 + ib / 2) >>> (4 * (ib % 2))) & 0xF;
        return (low | (((scalesH >>> (2 * ib)) & 3) << 4)) - 32;
    }

    // d, scales_h, scales_l[4], qs[128]: 8 sub-blocks of 32 laid out like IQ4_NL, each with its own scale
    private static void iq4_xs(MemorySegment s, long block, float[] out, int o) {
        float d = half(s, block);
        for (int ib = 0; ib < 8; ib++) {
            float dl = d * iq4_xsScale(s, block, ib);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, block + 8 + 16 * ib + j);
                out[o + 32 * ib + j] = dl * IQ4_LEVELS[q & 0xF];
                out[o + 32 * ib + j + 16] = dl * IQ4_LEVELS[q >>> 4];
            }
        }
    }
}
