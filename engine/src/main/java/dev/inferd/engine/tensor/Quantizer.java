package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Converts floats to the bytes of a GGML tensor type and back, with ggml's reference rounding
 * ({@code quantize_row_*_ref} in ggml-quants.c), so files written here quantize like llama.cpp's;
 * the k-quants Q4_K, Q5_K and Q6_K use a plainer one-pass rounding instead (valid blocks, not
 * llama-quantize's bytes). Used to write test and benchmark models; the scalar {@link #dequantize} is
 * the reference the fast kernels are tested against, and {@link #randomBlocks} makes valid blocks of
 * every type that has a kernel.
 */
public final class Quantizer {
    private Quantizer() {
    }

    /** The types {@link #quantize} writes. */
    public static boolean supports(GGMLType type) {
        return switch (type) {
            case F32, F16, BF16, Q8_0, Q4_0 -> true;
            default -> MoreQuantizers.canQuantize(type);
        };
    }

    /** The types {@link #dequantize} reads: every type this engine has kernels for. */
    public static boolean canDequantize(GGMLType type) {
        return supports(type) || ReferenceDequantizer.supports(type);
    }

    /**
     * {@code blocks} blocks of a quantized {@code type} made of random bits, with their scales set so
     * that the values lie within about {@code ±scale} (never more than about twice that): valid
     * blocks for every quantized type this engine has kernels for, even those {@link #quantize} cannot
     * write.
     */
    public static byte[] randomBlocks(GGMLType type, int blocks, long seed, float scale) {
        return MoreQuantizers.randomBlocks(type, blocks, seed, scale);
    }

    /** {@code values} as {@code type}; the count must be a whole number of blocks. */
    public static byte[] quantize(GGMLType type, float[] values) {
        return quantize(type, values, 0, values.length);
    }

    /** {@code values[offset .. offset + count)} as {@code type} (lets callers quantize a big tensor row by row). */
    public static byte[] quantize(GGMLType type, float[] values, int offset, int count) {
        requireSupported(type);
        byte[] out = new byte[Math.toIntExact(type.bytesFor(count))];
        ByteBuffer buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case F32 -> { for (int i = 0; i < count; i++) buf.putFloat(values[offset + i]); }
            case F16 -> { for (int i = 0; i < count; i++) buf.putShort(Float.floatToFloat16(values[offset + i])); }
            case BF16 -> { for (int i = 0; i < count; i++) buf.putShort(floatToBf16(values[offset + i])); }
            case Q8_0 -> { for (int b = 0; b < count; b += 32) quantizeQ8_0Block(values, offset + b, buf); }
            case Q4_0 -> { for (int b = 0; b < count; b += 32) quantizeQ4_0Block(values, offset + b, buf); }
            default -> MoreQuantizers.quantize(type, values, offset, count, buf);
        }
        return out;
    }

    /** The {@code count} floats that {@code data} (in {@code type}) stands for: the scalar reference decoding. */
    public static float[] dequantize(GGMLType type, byte[] data, int count) {
        if (!canDequantize(type)) throw new UnsupportedOperationException("no dequantizer for tensor type " + type);
        if (data.length < type.bytesFor(count)) {
            throw new IllegalArgumentException(count + " " + type + " elements need " + type.bytesFor(count)
                    + " bytes, got " + data.length);
        }
        float[] out = new float[count];
        ByteBuffer buf = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case F32 -> { for (int i = 0; i < count; i++) out[i] = buf.getFloat(); }
            case F16 -> { for (int i = 0; i < count; i++) out[i] = Float.float16ToFloat(buf.getShort()); }
            case BF16 -> { for (int i = 0; i < count; i++) out[i] = bf16ToFloat(buf.getShort()); }
            case Q8_0 -> {
                for (int b = 0; b < count; b += 32) {
                    float d = Float.float16ToFloat(buf.getShort());
                    for (int j = 0; j < 32; j++) out[b + j] = buf.get() * d;
                }
            }
            case Q4_0 -> {
                for (int b = 0; b < count; b += 32) {
                    float d = Float.float16ToFloat(buf.getShort());
                    for (int j = 0; j < 16; j++) {
                        int q = buf.get() & 0xFF;
                        out[b + j] = ((q & 0x0F) - 8) * d;
                        out[b + 16 + j] = ((q >>> 4) - 8) * d;
                    }
                }
            }
            default -> ReferenceDequantizer.dequantize(type, MemorySegment.ofArray(data), 0, count, out, 0);
        }
        return out;
    }

    /** bf16 with round-to-nearest-even, NaN kept quiet (ggml_compute_fp32_to_bf16). */
    public static short floatToBf16(float f) {
        int u = Float.floatToRawIntBits(f);
        if ((u & 0x7fffffff) > 0x7f800000) return (short) ((u >>> 16) | 64);
        return (short) ((u + (0x7fff + ((u >>> 16) & 1))) >>> 16);
    }

    public static float bf16ToFloat(short h) {
        return Float.intBitsToFloat((h & 0xFFFF) << 16);
    }

    // d = amax / 127, q = roundf(x / d) (rounding half away from zero, like C's roundf)
    private static void quantizeQ8_0Block(float[] x, int from, ByteBuffer out) {
        float amax = 0;
        for (int j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[from + j]));
        float d = amax / 127;
        float id = d != 0 ? 1.0f / d : 0.0f;
        out.putShort(Float.floatToFloat16(d));
        for (int j = 0; j < 32; j++) out.put((byte) roundHalfAwayFromZero(x[from + j] * id));
    }

    // d = (the value of largest magnitude, with its sign) / -8, q = min(15, (int8)(x / d + 8.5))
    private static void quantizeQ4_0Block(float[] x, int from, ByteBuffer out) {
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

    private static int roundHalfAwayFromZero(float v) {
        return (int) Math.copySign(Math.floor(Math.abs((double) v) + 0.5), v);
    }

    // C's (int8_t) cast of a float: truncation toward zero (the value is always in [0, 17) here)
    private static int truncateToInt8(float v) {
        return (byte) (int) v;
    }

    private static void requireSupported(GGMLType type) {
        if (!supports(type)) throw new UnsupportedOperationException("no quantizer for tensor type " + type);
    }
}
