package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.ASHR;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.OR;
import static jdk.incubator.vector.VectorOperators.S2I;
import static jdk.incubator.vector.VectorOperators.SUB;

/**
 * A copy of a quantized matrix laid out for generated tokens: rows interleaved in groups of
 * {@value #GROUP}, so that a vector lane follows one row and one call yields {@value #ROWS_PER_PASS}
 * rows' products with no sum across lanes, and no block scale is broadcast from a general register.
 * Built at load into a {@link CopyStore}; once it exists, everything that reads the matrix reads the copy.
 *
 * <p>The kernels are shaped for C2: they call nothing but the Vector API (a vector crossing a call C2 did
 * not inline is boxed), only methods that dispatch at their own call site, sign-extending conversions, and
 * stores on vectors of a class C2 knows. Why, and the JVM options they need: docs/engine.md.
 * {@code InterleavedKernelsAllocateNothingTest} and {@code KernelsDispatchAtTheirOwnCallSitesTest} check them.
 */
public abstract class InterleavedRows {
    /**
     * Rows interleaved in a group, a lane each: 16 where the machine has 512-bit vectors (AVX-512), else 8.
     * The kernels' integer products run in 16-bit lanes, two values of every row of the group a vector,
     * so the group follows the vector width; with 8 rows on an AVX-512 machine the 1B Q4_0 decoded at half
     * of llama.cpp's speed. The property {@value #GROUP_PROPERTY} (8 or 16) overrides it, for
     * tests of the other layout; a copy cache records the group size ({@link CopyCacheFile}).
     */
    public static final int GROUP = groupRows();
    public static final String GROUP_PROPERTY = "inferd.interleavedGroup";
    /** Rows per {@link #dot}: two groups share each activation broadcast. */
    public static final int ROWS_PER_PASS = 2 * GROUP;
    /** Bytes of a step: two values of each of a group's rows, which the kernels widen to shorts (Q8_0). */
    public static final int STEP_BYTES = 2 * GROUP;
    /**
     * Bytes of a step read as it lies, a {@link #STEP_S} vector: two 16-bit lanes for each of a group's rows,
     * several values packed in a lane (Q4_0 and Q4_K four, Q5_K three; Q5_0 three and a bit of a sixteenth; Q6_K eight
     * to three lanes).
     */
    public static final int LANE_STEP_BYTES = 4 * GROUP;

    /** A step's bytes, widened to its shorts; a group's bytes, shorts, ints and floats (a lane a row). */
    public static final VectorSpecies<Byte> STEP_B = GROUP == 16 ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128;
    public static final VectorSpecies<Short> STEP_S = GROUP == 16 ? ShortVector.SPECIES_512 : ShortVector.SPECIES_256;
    public static final VectorSpecies<Byte> GROUP_B = GROUP == 16 ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64;
    public static final VectorSpecies<Short> GROUP_S = GROUP == 16 ? ShortVector.SPECIES_256 : ShortVector.SPECIES_128;
    public static final VectorSpecies<Integer> GROUP_I = GROUP == 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    public static final VectorSpecies<Float> GROUP_F = GROUP == 16 ? FloatVector.SPECIES_512 : FloatVector.SPECIES_256;
    /** For decoding one row's values ({@link #decode}), whatever the group. */
    public static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    public static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    public static final VectorSpecies<Long> L1 = LongVector.SPECIES_64;
    /** The vector classes of those species, and of a row's eight bytes, to type vectors exactly ({@link VectorClasses}). */
    public static final Class<ShortVector> STEP_S_CLASS = VectorClasses.of(STEP_S);
    public static final Class<IntVector> GROUP_I_CLASS = VectorClasses.of(GROUP_I);
    public static final Class<FloatVector> GROUP_F_CLASS = VectorClasses.of(GROUP_F);
    public static final Class<FloatVector> F8_CLASS = VectorClasses.of(F8);
    private static final Class<ByteVector> ROW_BYTES_CLASS = VectorClasses.of(ByteVector.SPECIES_64);
    public static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    public static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    public static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);

    private static int groupRows() {
        String forced = System.getProperty(GROUP_PROPERTY);
        if (forced == null) return IntVector.SPECIES_PREFERRED.length() >= 16 ? 16 : 8;
        return switch (forced) {
            case "8" -> 8;
            case "16" -> 16;
            default -> throw new IllegalArgumentException(GROUP_PROPERTY + " must be 8 or 16, not " + forced);
        };
    }

    /**
     * The copy: pass after pass of two groups of {@link #GROUP} rows, block by block ({@link #pairAt}); within a
     * block, the two groups' bytes merged in the order the kernel reads them.
     */
    public final MemorySegment data;
    /** Blocks per row (blocks of 32 values, or super-blocks of 256). */
    public final int blocks;
    /** Bytes of one pass's blocks, both groups'. */
    public final long passBytes;
    /** Bytes of a block in the copy (a group's rows) and in the stored matrix (one row). */
    private final int blockBytes;
    private final int storedBlockBytes;

    /** A copy of a {@code rows x cols} matrix of {@code type}, {@code blockBytes} per block of a group, in {@code memory}. */
    public InterleavedRows(GGMLType type, int rows, int cols, int blockBytes, MemorySegment memory) {
        if (!fits(rows) || cols % type.blockSize() != 0) throw new IllegalArgumentException(rows + " x " + cols + " cannot be interleaved");
        this.blocks = cols / type.blockSize();
        this.blockBytes = blockBytes;
        this.storedBlockBytes = type.blockBytes();
        this.passBytes = 2L * blocks * blockBytes;
        if (memory.byteSize() != rows / ROWS_PER_PASS * passBytes) {
            throw new IllegalArgumentException("the copy takes " + rows / ROWS_PER_PASS * passBytes + " bytes, not " + memory.byteSize());
        }
        this.data = memory;
    }

    /** Whether a matrix of this many rows can be interleaved (every pass takes whole groups). */
    public static boolean fits(int rows) {
        return rows % ROWS_PER_PASS == 0;
    }

    /**
     * Bytes of the copy of a {@code rows x cols} matrix of {@code type} whose layout takes {@code blockBytes} per
     * block of a group, or 0 where the shape gets none.
     */
    public static long copyBytes(GGMLType type, int rows, int cols, int blockBytes) {
        if (!fits(rows) || cols % type.blockSize() != 0) return 0;
        return (long) rows / GROUP * (cols / type.blockSize()) * blockBytes;
    }

    /** Group {@code group}'s rows of the stored matrix {@code stored}, copied into the layout block by block. */
    public final void fill(MemorySegment stored, int group) {
        long storedRowBytes = (long) blocks * storedBlockBytes;
        for (int k = 0; k < blocks; k++) {
            long pair = pairAt(group, k);
            for (int r = 0; r < GROUP; r++) {
                fillBlock(stored, ((long) group * GROUP + r) * storedRowBytes + (long) k * storedBlockBytes, pair, group % 2, r);
            }
        }
    }

    /**
     * The stored block at {@code from}, row {@code r} of its group, into the pass's block at {@code pair},
     * where the group is the pass's first ({@code place} 0) or second (1).
     */
    public abstract void fillBlock(MemorySegment stored, long from, long pair, int place, int r);

    /** Every group of the {@code rows} copied from {@code stored}, on the shared worker pool. */
    public final void fillFrom(MemorySegment stored, int rows) {
        int groups = rows / GROUP;
        int tasks = Math.min(groups, 64); // a few per thread, so that uneven threads even out
        WorkerPool.shared().parallelFor(tasks, (task, worker) -> {
            for (int g = (int) ((long) groups * task / tasks), end = (int) ((long) groups * (task + 1) / tasks); g < end; g++) {
                fill(stored, g);
            }
        });
    }

    /**
     * Rows {@code [ROWS_PER_PASS * pass, ROWS_PER_PASS * (pass + 1))} with entry {@code b} of the activations, into
     * {@code out[outIndex .. outIndex + ROWS_PER_PASS)}.
     */
    public abstract void dot(int pass, Q8Activations x, int b, float[] out, int outIndex);

    /**
     * As {@link #dot} for entries {@code b} and {@code b + 1}, into {@code out[outIndex ..)} and
     * {@code out[outIndex + stride ..)}, each bit for bit {@link #dot}'s result: generated tokens of a batch
     * go through here two by two. A type whose kernel decodes each step's weights once for both entries
     * overrides it; by default each entry takes {@link #dot}.
     */
    public void dot2(int pass, Q8Activations x, int b, float[] out, int outIndex, int stride) {
        dot(pass, x, b, out, outIndex);
        dot(pass, x, b + 1, out, outIndex + stride);
    }

    /**
     * Row {@code row}'s blocks {@code [firstBlock, firstBlock + blockCount)} as floats into
     * {@code out[offset ..)}, bit for bit the stored matrix's decoding (llama.cpp's): the prompt panels
     * and embedding rows of a copied matrix come from here. Each type loops over its blocks itself: with
     * the loop here and a call per block, a prompt of 8 tokens on the 1B Q4_0 measured about 10% slower.
     */
    public abstract void decode(int row, int firstBlock, int blockCount, float[] out, int offset);

    /**
     * Group {@code group}'s rows, blocks {@code [firstBlock, firstBlock + blockCount)}, into a prompt
     * panel ({@link TiledProduct}): column k's {@link #GROUP} values (k counted from the first block's first) at
     * {@code panel[k * stride + lane ..+ GROUP)}, each bit for bit what {@link #decode} gives. A step of the copy
     * already holds two columns of all the group's rows, so a column is a few vector operations where decoding
     * row by row and scattering the values into the panel one at a time had cost a prompt of 16 tokens
     * more than its products.
     */
    public abstract void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane);

    /**
     * The copies that keep their scales as the file's halves (Q4_0, Q8_0; Q4_K's and Q5_K's d and dmin) widen them
     * as {@link F16Matrix} widens weights: a half's bits, sign-extended and moved up by 13, are a float 2^112 times
     * too small once the sign copies in bits 28-30 are masked off. Exact for every finite half; infinities and NaNs, which usable weights
     * do not hold, are not kept. As floats a block's scales are a fifth of a Q4_0 copy, and a token reads every
     * byte of it: the 1B Q4_0 decoded about 10% slower with them.
     */
    public static final float HALF_EXPONENT_FIX = 0x1p112f;
    public static final int HALF_SIGN_AND_MAGNITUDE = 0x8FFFFFFF;

    /** A group's scales stored as halves at {@code at}, as floats into {@code out[offset ..+ GROUP)}: the kernels' widening. */
    public final void widenHalves(long at, float[] out, int offset) {
        GROUP_F_CLASS.cast(GROUP_F_CLASS.cast(((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, at, LE).convertShape(S2I, GROUP_I, 0))
                .lanewise(LSHL, IntVector.broadcast(GROUP_I, 13)).lanewise(AND, IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE))
                .reinterpretShape(GROUP_F, 0)).lanewise(MUL, FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX))).intoArray(out, offset);
    }

    /** Per-thread room for a block's row scales ({@code [0, GROUP)}) and mins ({@code [GROUP, 2 GROUP)}) while it goes into a panel. */
    public static final ThreadLocal<float[]> PANEL_SCALES = ThreadLocal.withInitial(() -> new float[2 * GROUP]);

    /**
     * The step at {@code at} of a copy whose steps hold signed bytes (Q8_0): each row's two values
     * times its scale ({@code scales[r]}) into the panel's columns at {@code column} and {@code column + stride}.
     * Vectors stay inside: a helper that C2 leaves as a call boxes the vectors it takes.
     */
    public final void signedStepToPanel(long at, float[] scales, float[] panel, int column, int stride) {
        var scale = FloatVector.fromArray(GROUP_F, scales, 0);
        var pairs = (IntVector) ShortVector.fromMemorySegment(GROUP_S, data, at, LE).convertShape(S2I, GROUP_I, 0);
        var low = pairs.lanewise(LSHL, IntVector.broadcast(GROUP_I, 24))
                .lanewise(ASHR, IntVector.broadcast(GROUP_I, 24));
        var high = pairs.lanewise(ASHR, IntVector.broadcast(GROUP_I, 8));
        GROUP_F_CLASS.cast(GROUP_F_CLASS.cast(low.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column);
        GROUP_F_CLASS.cast(GROUP_F_CLASS.cast(high.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale))
                .intoArray(panel, column + stride);
    }

    /**
     * Nibble {@code n} of each row's 32 bits (its two 16-bit lanes) in the step of nibbles at {@code at}
     * (Q4_0, Q4_K: nibble f of lane {@code 2r + t} is row r's value {@code 8s + 2f + t} of step s, and of
     * the row's 32 bits it is nibble {@code n = 4t + f}), {@code (q - offset) * scales[r] - scales[GROUP + r]}
     * into the panel's column at {@code column}: the stored decodings' operations (Q4_0's min is zero, and
     * subtracting zero changes no float). Vectors stay inside: a helper that C2 leaves as a call boxes the
     * vectors it takes (the Q4_K PANEL case of InterleavedKernelsAllocateNothingTest allocated).
     */
    public final void nibbleToPanel(long at, int n, int offset, float[] scales, float[] panel, int column) {
        // the step read as ints, a row's two lanes each, and every nibble masked
        var q = IntVector.fromMemorySegment(GROUP_I, data, at, LE).lanewise(LSHR, IntVector.broadcast(GROUP_I, 4 * n))
                .lanewise(AND, IntVector.broadcast(GROUP_I, 0xF)).lanewise(SUB, IntVector.broadcast(GROUP_I, offset));
        GROUP_F_CLASS.cast(GROUP_F_CLASS.cast(q.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, FloatVector.fromArray(GROUP_F, scales, 0))
                .lanewise(SUB, FloatVector.fromArray(GROUP_F, scales, GROUP))).intoArray(panel, column);
    }

    /**
     * The four steps of nibbles of a 32-value block of a pass's first group (from {@code steps0}) and of its second
     * (from {@code steps1}), as {@code q - 8} into 32 columns of an integer panel of {@link IntTiledProduct}: column
     * l's 32 values at {@code panel[column + l * stride ..)}, the first group's row j in lane {@code 2j}, the second
     * group's row j in lane {@code 2j + 1}. Read as ints, a step holds two columns of a group's rows in the halves
     * of each row's int ({@link #nibbleToPanel}), so a column of both groups is the two groups' low (or high)
     * halves put together. Q4_0 and Q4_K blocks of 32 share the layout. Only for groups of 16 rows.
     */
    public final void nibbleStepsToShortPanel(long steps0, long steps1, short[] panel, int column, int stride) {
        MemorySegment data = this.data;
        var nibbles = IntVector.broadcast(GROUP_I, 0x000F000F);
        var low = IntVector.broadcast(GROUP_I, 0x0000FFFF);
        var high = IntVector.broadcast(GROUP_I, 0xFFFF0000);
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var eight = ShortVector.broadcast(STEP_S, (short) 8);
        for (int s = 0; s < 4; s++) {
            var step0 = IntVector.fromMemorySegment(GROUP_I, data, steps0 + (long) s * LANE_STEP_BYTES, LE);
            var step1 = IntVector.fromMemorySegment(GROUP_I, data, steps1 + (long) s * LANE_STEP_BYTES, LE);
            for (int f = 0; f < 4; f++) {
                var shift = IntVector.broadcast(GROUP_I, 4 * f);
                // values 8s + 2f (low half) and 8s + 2f + 1 (high half) of each row of a group
                var q0 = step0.lanewise(LSHR, shift).lanewise(AND, nibbles);
                var q1 = step1.lanewise(LSHR, shift).lanewise(AND, nibbles);
                var even = q0.lanewise(AND, low).lanewise(OR, q1.lanewise(LSHL, sixteen));
                var odd = q0.lanewise(LSHR, sixteen).lanewise(OR, q1.lanewise(AND, high));
                int at = column + (8 * s + 2 * f) * stride;
                STEP_S_CLASS.cast(STEP_S_CLASS.cast(even.reinterpretShape(STEP_S, 0)).lanewise(SUB, eight)).intoArray(panel, at);
                STEP_S_CLASS.cast(STEP_S_CLASS.cast(odd.reinterpretShape(STEP_S, 0)).lanewise(SUB, eight)).intoArray(panel, at + stride);
            }
        }
    }

    /** The column (of its 32-value block) of nibble {@code n} of a row's 32 bits in step s: see {@link #nibbleToPanel}. */
    public static int nibbleColumn(int s, int n) {
        return 8 * s + 2 * (n % 4) + n / 4;
    }

    /** Row {@code r}'s value {@code l} (0..31, unsigned) of the four steps of nibbles from {@code steps}: see {@link #nibbleToPanel}. */
    public final int nibble(long steps, int r, int l) {
        int s = l / 8, f = l % 8 / 2, t = l % 2;
        return data.get(SHORT, steps + (long) s * LANE_STEP_BYTES + 2L * (2 * r + t)) >>> 4 * f & 0x0F;
    }

    /**
     * Where block {@code block} of group {@code group}'s pass starts: both groups' bytes for those columns. The
     * two groups of a pass go block by block, so that a pass reads one stream: with each group's blocks in a
     * run of their own, a pass read two streams a group apart, and one thread streamed a Q4_0 matrix from
     * memory at 0.6 of the speed. Within the block too the kernels' reads should go forward:
     * the k-quant copies had each group's scales first and its values after, and a kernel reading a
     * sub-block's values from both groups and then their scales got 15 GB/s from memory on one thread
     * where plain streaming got 25, so those copies merge the groups in reading order, and so
     * does Q8_0's, whose kernel reads half a block of each group at a time (17 GB/s against 25), and Q4_0's
     * (both groups' scales, then each group's values).
     */
    public final long pairAt(int group, int block) {
        return group / 2 * passBytes + 2L * block * blockBytes;
    }

    /**
     * Row {@code r}'s eight bytes of steps 0-3 ({@code half} 0) or 4-7 (half 1) from {@code steps}, in its own order
     * (in the copies' step layout, bytes {@code 2r} and {@code 2r + 1} of step s hold the row's bytes 2s and 2s + 1).
     * Eight bytes a vector, so that each converts as its part 0: part 1 of a conversion slices inside the JDK, on a
     * vector whose class C2 does not know ({@link VectorClasses}).
     */
    public final ByteVector rowBytes(long steps, int r, int half) {
        return ROW_BYTES_CLASS.cast(LongVector.broadcast(L1, rowLong(steps, r, half)).reinterpretShape(ByteVector.SPECIES_64, 0));
    }

    /** {@link #rowBytes}'s eight bytes as a long. */
    private long rowLong(long steps, int r, int half) {
        long at = steps + 2L * r + (long) half * 4 * STEP_BYTES;
        return (data.get(SHORT, at) & 0xFFFFL) | (data.get(SHORT, at + STEP_BYTES) & 0xFFFFL) << 16
                | (data.get(SHORT, at + 2 * STEP_BYTES) & 0xFFFFL) << 32 | (long) data.get(SHORT, at + 3 * STEP_BYTES) << 48;
    }
}
