package dev.inferd.engine.tensor.format;

import dev.inferd.engine.gguf.GGMLType;

import dev.inferd.engine.tensor.format.bf16.BF16Reference;
import dev.inferd.engine.tensor.format.iq4_nl.IQ4_NLReference;
import dev.inferd.engine.tensor.format.iq4_xs.IQ4_XSReference;
import dev.inferd.engine.tensor.format.q2_k.Q2_KReference;
import dev.inferd.engine.tensor.format.q3_k.Q3_KReference;
import dev.inferd.engine.tensor.format.q4_0.Q4_0Reference;
import dev.inferd.engine.tensor.format.q4_1.Q4_1Reference;
import dev.inferd.engine.tensor.format.q4_k.Q4_KReference;
import dev.inferd.engine.tensor.format.q5_0.Q5_0Reference;
import dev.inferd.engine.tensor.format.q5_1.Q5_1Reference;
import dev.inferd.engine.tensor.format.q5_k.Q5_KReference;
import dev.inferd.engine.tensor.format.q6_k.Q6_KReference;
import dev.inferd.engine.tensor.format.q8_0.Q8_0Reference;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Converts floats to the bytes of a GGML tensor type and back, with ggml's reference rounding
 * ({@code quantize_row_*_ref} in ggml-quants.c), so files written here quantize like llama.cpp's;
 * the k-quants Q4_K, Q5_K and Q6_K use a plainer one-pass rounding instead (valid blocks, not
 * llama-quantize's bytes). Used to write test and benchmark models; the scalar {@link #dequantize} is
 * the reference the fast kernels are tested against, and {@link #randomBlocks} makes valid blocks of
 * every type that has a kernel. The rounding and decoding of each type are in its format's package
 * ({@code <TYPE>Reference}).
 */
public final class Quantizer {
    private Quantizer() {
    }

    /** The types {@link #quantize} writes. */
    public static boolean supports(GGMLType type) {
        return switch (type) {
            case F32, F16, BF16, Q8_0, Q4_0 -> true;
            case Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K -> true;
            default -> false;
        };
    }

    /** The types {@link #dequantize} reads: every type this engine has kernels for. */
    public static boolean canDequantize(GGMLType type) {
        return switch (type) {
            case F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS -> true;
            default -> false;
        };
    }

    /**
     * {@code blocks} blocks of a quantized {@code type} made of random bits, with their scales set so
     * that the values lie within about {@code ±scale} (never more than about twice that): valid
     * blocks for every quantized type this engine has kernels for, even those {@link #quantize} cannot
     * write.
     */
    public static byte[] randomBlocks(GGMLType type, int blocks, long seed, float scale) {
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
            default -> {
                for (int b = 0; b < count; b += type.blockSize()) {
                    int from = offset + b;
                    switch (type) {
                        case Q8_0 -> Q8_0Reference.quantizeBlock(values, from, buf);
                        case Q4_0 -> Q4_0Reference.quantizeBlock(values, from, buf);
                        case Q4_1 -> Q4_1Reference.quantizeBlock(values, from, buf);
                        case Q5_0 -> Q5_0Reference.quantizeBlock(values, from, buf);
                        case Q5_1 -> Q5_1Reference.quantizeBlock(values, from, buf);
                        case Q4_K -> Q4_KReference.quantizeBlock(values, from, buf);
                        case Q5_K -> Q5_KReference.quantizeBlock(values, from, buf);
                        case Q6_K -> Q6_KReference.quantizeBlock(values, from, buf);
                        default -> throw new UnsupportedOperationException("no quantizer for tensor type " + type);
                    }
                }
            }
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
            default -> dequantize(type, MemorySegment.ofArray(data), 0, count, out, 0);
        }
        return out;
    }

    /** bf16 with round-to-nearest-even, NaN kept quiet (ggml_compute_fp32_to_bf16). */
    public static short floatToBf16(float f) {
        return BF16Reference.floatToBf16(f);
    }

    public static float bf16ToFloat(short h) {
        return BF16Reference.bf16ToFloat(h);
    }

    /** Decodes {@code count} values (whole blocks) of a block type beyond Q8_0/Q4_0 at {@code at} into {@code out[outOffset ..)}. */
    private static void dequantize(GGMLType type, MemorySegment src, long at, int count, float[] out, int outOffset) {
        int blocks = count / type.blockSize();
        for (int b = 0; b < blocks; b++) {
            long block = at + (long) b * type.blockBytes();
            int o = outOffset + b * type.blockSize();
            switch (type) {
                case Q4_1 -> Q4_1Reference.dequantizeBlock(src, block, out, o);
                case Q5_0 -> Q5_0Reference.dequantizeBlock(src, block, out, o);
                case Q5_1 -> Q5_1Reference.dequantizeBlock(src, block, out, o);
                case Q2_K -> Q2_KReference.dequantizeBlock(src, block, out, o);
                case Q3_K -> Q3_KReference.dequantizeBlock(src, block, out, o);
                case Q4_K -> Q4_KReference.dequantizeBlock(src, block, out, o);
                case Q5_K -> Q5_KReference.dequantizeBlock(src, block, out, o);
                case Q6_K -> Q6_KReference.dequantizeBlock(src, block, out, o);
                case IQ4_NL -> IQ4_NLReference.dequantizeBlock(src, block, out, o);
                case IQ4_XS -> IQ4_XSReference.dequantizeBlock(src, block, out, o);
                default -> throw new UnsupportedOperationException("no reference decoding for " + type);
            }
        }
    }

    private static void putHalf(ByteBuffer buf, int at, float value) {
        buf.putShort(at, Float.floatToFloat16(value));
    }

    private static void requireSupported(GGMLType type) {
        if (!supports(type)) throw new UnsupportedOperationException("no quantizer for tensor type " + type);
    }
}
