package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.F2I;
import static jdk.incubator.vector.VectorOperators.I2S;
import static jdk.incubator.vector.VectorOperators.MAX;
import static jdk.incubator.vector.VectorOperators.MIN;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.SUB;

/**
 * A batch of activation rows quantized to int8 the way llama.cpp quantizes them for the same weight
 * types, so that the integer kernels see llama.cpp's numbers. Two layouts:
 * <ul>
 *   <li>{@link #Q8_0}, blocks of 32 (ggml's {@code quantize_row_q8_0} on x86): {@code d = max|x| / 127}
 *       rounded to fp16, {@code q = x * (127 / max|x|)};</li>
 *   <li>{@link #Q8_K}, blocks of 256 for the k-quants ({@code quantize_row_q8_K}): with {@code m} the
 *       value of largest magnitude, {@code q = min(127, x * (-127 / m))} and {@code d = 1 / (-127 / m)},
 *       a float.</li>
 * </ul>
 * Both round to the nearest integer, ties to even. Each row is quantized on its own, so a row's blocks
 * do not depend on the batch around it. The sum of every 32 q is kept as well, for weight types that
 * subtract a minimum per 32 values.
 *
 * <p>The q are stored widened to shorts, the width the kernels multiply at: every weight row reads
 * them again, and widening once here saves a conversion per block per row.
 */
public final class Q8Activations {
    /** The layout of ggml's Q8_0 (scale per 32 values). */
    public static final int Q8_0 = 32;
    /** The layout of ggml's Q8_K (scale per 256 values). */
    public static final int Q8_K = 256;
    /** Values per entry of {@link #sums}. */
    public static final int SUM_BLOCK = 32;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Short> S8 = ShortVector.SPECIES_128;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    /** The vector classes of F8, I8, S8 and S16, to type vectors exactly ({@link VectorClasses}). */
    private static final Class<FloatVector> F8_CLASS = VectorClasses.of(F8);
    private static final Class<IntVector> I8_CLASS = VectorClasses.of(I8);
    private static final Class<ShortVector> S8_CLASS = VectorClasses.of(S8);
    private static final Class<ShortVector> S16_CLASS = VectorClasses.of(S16);
    /** 1.5 * 2^23: adding and subtracting it rounds a float of magnitude under 2^22 to an integer, ties to even. */
    private static final float ROUNDING = 12582912f;

    /** {@code q[b * cols + c]}: entry b's value c. */
    public short[] q = new short[0];
    /** {@code d[b * blocksPerRow + k]}: the scale of entry b's block k. */
    public float[] d = new float[0];
    /** {@code sums[b * sumsPerRow + k]}: the sum of entry b's q from {@code 32k} to {@code 32k + 31}. */
    public int[] sums = new int[0];
    /** The q two at a time, as the {@link InterleavedRows} kernels broadcast them: {@code pairs[i] = q[2i] & 0xFFFF | q[2i + 1] << 16}. */
    public int[] pairs = new int[0];
    public int blocksPerRow;
    public int sumsPerRow;
    /** The values per scale of the last {@link #reserve}, and its log2 (both layouts' blocks are powers of two). */
    private int block;
    private int blockShift;

    /** Quantizes entries {@code [from, batch)} of {@code x}; entry b's values keep their index in q. */
    public void quantize(float[] x, int from, int batch, int cols, int block) {
        reserve(batch, cols, block);
        quantizeRows(x, from, batch);
    }

    /**
     * Sizes the arrays for {@code batch} entries of {@code cols} values in blocks of {@code block}, for {@link
     * #quantizeRows} calls that may then run on several threads at once, each on its own entries.
     */
    public void reserve(int batch, int cols, int block) {
        if (cols % block != 0) throw new IllegalArgumentException("row length " + cols + " is not a multiple of " + block);
        this.block = block;
        this.blockShift = Integer.numberOfTrailingZeros(block);
        this.blocksPerRow = cols / block;
        this.sumsPerRow = cols / SUM_BLOCK;
        if (q.length < batch * cols) q = new short[batch * cols];
        if (d.length < batch * blocksPerRow) d = new float[batch * blocksPerRow];
        if (sums.length < batch * sumsPerRow) sums = new int[batch * sumsPerRow];
        if (pairs.length < batch * cols / 2) pairs = new int[batch * cols / 2];
    }

    /** Quantizes entries {@code [from, to)} of {@code x} into the arrays sized by the last {@link #reserve}. */
    public void quantizeRows(float[] x, int from, int to) {
        for (int k = from * blocksPerRow, end = to * blocksPerRow; k < end; k++) {
            int at = k * block;
            if (block == Q8_0) {
                float max = absMax(x, at, block);
                d[k] = Float.float16ToFloat(Float.floatToFloat16(max / 127f));
                scale(x, at, block, max != 0f ? 127f / max : 0f);
            } else {
                float max = signedMax(x, at, block);
                float inverse = max != 0f ? -127f / max : 0f;
                d[k] = max != 0f ? 1f / inverse : 0f;
                scale(x, at, block, inverse);
            }
        }
    }

    /**
     * Value {@code i} (entry {@code i / cols}) as the integer kernels see it, {@code q * d}: exact for Q8_0 (fp16
     * scales); for Q8_K within one float rounding.
     */
    public float rounded(int i) {
        return q[i] * d[i >>> blockShift];
    }

    /**
     * The largest magnitude among {@code x[at .. at + n)}, as the largest of their bits without the sign: the bits
     * of non-negative floats order as their values, and a NaN's lie above infinity's. A float {@code MAX} (Java's
     * {@code Math.max}, NaN and signed zeros taken care of) took three times as long.
     */
    private static float absMax(float[] x, int at, int n) {
        var magnitude = IntVector.broadcast(I8, 0x7FFFFFFF);
        var amax = IntVector.zero(I8);
        for (int i = 0; i < n; i += F8.length()) {
            amax = amax.lanewise(MAX, F8_CLASS.cast(FloatVector.fromArray(F8, x, at + i)).reinterpretAsInts().lanewise(AND, magnitude));
        }
        return Float.intBitsToFloat(amax.reduceLanes(MAX)); // exact in any order
    }

    /** The first value of the largest magnitude; 0 where there are NaNs. */
    private static float signedMax(float[] x, int at, int n) {
        float amax = absMax(x, at, n);
        if (Float.isNaN(amax)) return 0f;
        var magnitude = IntVector.broadcast(I8, 0x7FFFFFFF);
        var bits = IntVector.broadcast(I8, Float.floatToRawIntBits(amax));
        for (int i = at; i < at + n; i += F8.length()) {
            var found = F8_CLASS.cast(FloatVector.fromArray(F8, x, i)).reinterpretAsInts().lanewise(AND, magnitude).compare(EQ, bits);
            if (found.anyTrue()) return x[i + found.firstTrue()];
        }
        return 0f; // not reached: some value has the largest magnitude
    }

    /**
     * {@code q = min(127, round(x * inverse))} for {@code x[at .. at + n)}, their sums per 32, and their pairs.
     * Written with {@code lanewise} and named species, as the kernels are ({@link InterleavedRows}): with the
     * convenience methods ({@code mul(float)}, {@code min(int)}, {@code convert}) this took 3% of a decoding
     * thread's time, on the calling thread alone, against 0.65 ns a value measured on its own.
     */
    private void scale(float[] x, int at, int n, float inverse) {
        var factor = FloatVector.broadcast(F8, inverse);
        var rounding = FloatVector.broadcast(F8, ROUNDING);
        var largest = IntVector.broadcast(I8, 127);
        for (int s = at; s < at + n; s += SUM_BLOCK) {
            var sum = IntVector.zero(I8);
            for (int i = s; i < s + SUM_BLOCK; i += F8.length()) {
                var scaled = F8_CLASS.cast(FloatVector.fromArray(F8, x, i)).lanewise(MUL, factor).lanewise(ADD, rounding).lanewise(SUB, rounding);
                var ints = I8_CLASS.cast(scaled.convertShape(F2I, I8, 0)).lanewise(MIN, largest);
                sum = sum.lanewise(ADD, ints);
                S8_CLASS.cast(ints.convertShape(I2S, S8, 0)).intoArray(q, i);
            }
            sums[s / SUM_BLOCK] = sum.reduceLanes(ADD);
            for (int i = s; i < s + SUM_BLOCK; i += S16.length()) {
                I8_CLASS.cast(S16_CLASS.cast(ShortVector.fromArray(S16, q, i)).reinterpretShape(I8, 0)).intoArray(pairs, i / 2);
            }
        }
    }
}
