package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Weight types whose blocks line up with 32-value activation blocks, multiplied with activations quantized to the
 * same blocks ({@link Q8Activations}), as llama.cpp does: per block an exact integer dot product of the
 * int8 values, then one float multiply-add by the two scales. On these machines that is about 1.7x the
 * speed of widening every weight to a float.
 *
 * <p>The integer products are 16-bit (weights and activations widened to shorts, x86's {@code pmullw}),
 * their pairs summed to 32-bit lanes with shifts (what {@code pmaddwd} does in one instruction, which
 * the Vector API does not expose). The kernels use 256-bit vectors whatever the machine's widest.
 *
 * <p>Generated tokens take the same kernels at every batch size ({@link #dot} alone, {@link #dot2} for
 * two activation rows): the per-block integer sums are exact, and each row's float operations are the
 * same in both, so a row's result never depends on its batch (Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K matrices
 * whose rows come in sets of 16 take their {@link InterleavedRows} copy instead, one activation row at a time).
 * Prompt tokens take {@link TiledProduct} over the same rounded activations ({@link #tiledActivations}), except
 * with a Q4_0 or Q4_K copy on a machine with 512-bit vectors: there {@link IntTiledProduct} gives each row the row
 * kernel's bits, so a batch of any roles takes it or the row kernels by its size ({@link ProductPath}).
 */
public abstract class IntDotMatrix extends MappedMatrix {
    public static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    public static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    public static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    public static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    public static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    public static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    /** The vector classes of S16, I8 and F8, to type vectors exactly ({@link VectorClasses}). */
    public static final Class<ShortVector> S16_CLASS = VectorClasses.of(S16);
    public static final Class<IntVector> I8_CLASS = VectorClasses.of(I8);
    public static final Class<FloatVector> F8_CLASS = VectorClasses.of(F8);
    /** Values per block for the Q8_0-like types. */
    public static final int BLOCK = Q8Activations.Q8_0;

    /** {@link Q8Activations#Q8_0} or {@link Q8Activations#Q8_K}: how this type wants its activations. */
    private final int activationBlock;
    /** The copy that generated tokens take, or null where the type has none or the rows do not come in whole sets of 16. */
    private final InterleavedRows interleaved;

    public IntDotMatrix(GGMLType type, int rows, int cols, MemorySegment data, int activationBlock) {
        this(type, rows, cols, data, activationBlock, null);
    }

    public IntDotMatrix(GGMLType type, int rows, int cols, MemorySegment data, int activationBlock, InterleavedRows interleaved) {
        super(type, rows, cols, data);
        this.activationBlock = activationBlock;
        this.interleaved = interleaved;
    }

    @Override
    public final int rowUnit() {
        return interleaved != null ? InterleavedRows.ROWS_PER_PASS : 1;
    }

    /** Through the interleaved copy where there is one: two groups of rows a pass, the activation rows two at a time. */
    @Override
    public final void multiplyRows(Job job, int from, int to) {
        if (interleaved == null) {
            super.multiplyRows(job, from, to);
            return;
        }
        for (int r = from; r < to; r += InterleavedRows.ROWS_PER_PASS) {
            int pass = r / InterleavedRows.ROWS_PER_PASS;
            int b = job.first;
            for (; b + 1 < job.batch; b += 2) interleaved.dot2(pass, job.quantized, b, job.out, b * rows + r, rows);
            if (b < job.batch) interleaved.dot(pass, job.quantized, b, job.out, b * rows + r);
        }
    }

    /** A Q4_0 or Q4_K copy on a machine with 512-bit vectors: {@link IntTiledProduct} gives a row the row kernel's bits. */
    @Override
    public final boolean rolesShareBits() {
        return interleaved instanceof ShortPanels && IntTiledProduct.SUPPORTED;
    }

    @Override
    public final void multiplyIntTiles(Job job) {
        IntTiledProduct product = job.intTiled;
        product.start((ShortPanels) interleaved, rows, cols, job.x, job.quantized, activationBlock, job.batch, job.out);
        run(product.packing(), product.packingTasks(), job.batch);
        run(product, product.tasks(), job.batch);
    }

    public final int activationBlock() {
        return activationBlock;
    }

    /** Row {@code rowOffset} with entry {@code b} of the quantized activations. */
    public abstract float dot(long rowOffset, Q8Activations x, int b);

    /**
     * The same row with entries {@code b} and {@code b + 1}, into {@code out[outIndex]} and
     * {@code out[outIndex + rows]}; each as {@link #dot}. A type whose weights are cheap to decode
     * against their products decodes them once for both; by default each entry takes {@link #dot}.
     * Two, not four: a four-row body exceeds C2's inlining node budget, and a vector helper it then
     * leaves out of line is boxed on the heap, which made prefill slower than decoding.
     */
    public void dot2(long rowOffset, Q8Activations x, int b, float[] out, int outIndex) {
        out[outIndex] = dot(rowOffset, x, b);
        out[outIndex + rows] = dot(rowOffset, x, b + 1);
    }

    /**
     * Decoding for embedding lookups, small tensors and the panels of {@link TiledProduct}, bit for bit
     * ggml's: from the interleaved copy where there is one, so that nothing reads the stored weights
     * after the copy is made, else from the stored weights ({@link #dequantizeStored}).
     */
    @Override
    public final void dequantize(long at, int count, float[] out, int offset) {
        if (interleaved == null) {
            dequantizeStored(at, count, out, offset);
            return;
        }
        int blockSize = type().blockSize();
        int row = Math.toIntExact(at / rowBytes);
        int firstBlock = Math.toIntExact(at % rowBytes / type().blockBytes());
        interleaved.decode(row, firstBlock, count / blockSize, out, offset);
    }

    /** Whole groups of an interleaved copy go into the panel a column (of a group's rows) at a time. */
    @Override
    public final boolean decodePanel(int r0, int width, int k0, int depth, float[] panel, int stride) {
        int g = InterleavedRows.GROUP;
        if (!decodesPanels() || r0 % g != 0 || width % g != 0) return false;
        int blockSize = type().blockSize();
        for (int lane = 0; lane < width; lane += g) {
            interleaved.decodePanel((r0 + lane) / g, k0 / blockSize, depth / blockSize, panel, stride, lane);
        }
        return true;
    }

    @Override
    public final boolean decodesPanels() {
        return interleaved != null;
    }

    /** {@link #dequantize} from the stored weights, {@code count} values (whole blocks) from byte {@code at}, bit for bit ggml's. */
    public abstract void dequantizeStored(long at, int count, float[] out, int offset);

    /** Whether generated tokens (and every other read) take an interleaved copy of the weights. */
    public final boolean hasCopy() {
        return interleaved != null;
    }

    /**
     * The prompt rows rounded to the int8 blocks of {@link Q8Activations}, {@code q * d}: the tiled
     * product multiplies in floats, and with the activations llama.cpp's kernels see for these types
     * a prompt gives llama.cpp's numbers to float rounding, as the row kernels do; unrounded, synthetic
     * models drift from llama.cpp's greedy tokens after a few dozen.
     */
    @Override
    public final int promptRounding() {
        return activationBlock;
    }

    @Override
    public final int prepare(Job job) {
        job.quantized.quantize(job.x, job.first, job.batch, cols, activationBlock);
        return rowTasks();
    }

    @Override
    public final float rowDot(Job job, long rowOffset, int b) {
        return dot(rowOffset, job.quantized, b);
    }

    @Override
    public final void rowDot4(Job job, long rowOffset, int b, int outIndex) {
        for (int k = 0; k < 4; k += 2) dot2(rowOffset, job.quantized, b + k, job.out, outIndex + k * rows);
    }

    /** 16 bytes at {@code at}, sign-extended to shorts. */
    public final ShortVector bytes(long at) {
        return (ShortVector) ByteVector.fromMemorySegment(B16, data, at, LE).convertShape(VectorOperators.B2S, S16, 0);
    }

    public final float scale(long at) {
        return Float.float16ToFloat(data.get(HALF, at));
    }

    /** 16 activation values from {@code at}. */
    public static ShortVector activations(Q8Activations x, int at) {
        return S16_CLASS.cast(ShortVector.fromArray(S16, x.q, at));
    }

    /** The 16 lanes added in adjacent pairs into 8 int lanes: exact for any 16-bit values. */
    public static IntVector pairSums(ShortVector products) {
        var pairs = I8_CLASS.cast(S16_CLASS.cast(products).reinterpretAsInts());
        return pairs.lanewise(VectorOperators.ASHR, 16)
                .add(pairs.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
    }

    /**
     * {@link #pairSums} in one operation fewer, for callers whose every pair sum fits in 16 bits: adding
     * the int lane shifted up by 16 puts low + high in the upper half (no carry comes up from the lower
     * half, which is added to zero), and an arithmetic shift brings it down, sign and all.
     */
    public static IntVector smallPairSums(ShortVector products) {
        var pairs = I8_CLASS.cast(S16_CLASS.cast(products).reinterpretAsInts());
        return pairs.add(pairs.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
    }

    /** {@code acc + sums * scale}, lane by lane. */
    public static FloatVector accumulate(IntVector sums, float scale, FloatVector acc) {
        return F8_CLASS.cast(I8_CLASS.cast(sums).convertShape(VectorOperators.I2F, F8, 0)).fma(FloatVector.broadcast(F8, scale), acc);
    }
}
