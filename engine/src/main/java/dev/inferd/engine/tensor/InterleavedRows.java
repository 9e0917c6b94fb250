package dev.inferd.engine.tensor;

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
 * rows' products with no sum across lanes. llama.cpp repacks weights the same way on these machines;
 * in the stored layout every block's scale must be broadcast from a general register, and that
 * per-block step held the row kernels to half of llama.cpp's speed or less (sessions 7 and 8).
 *
 * <p>The copy is built at load, on the shared worker pool, in native memory, and cached in a file that
 * later loads map instead and then move into memory of their own ({@link CopyStore}); GGUF data is little-endian and the kernels read the copy
 * little-endian whatever the machine. Everything that reads a copied matrix reads the copy (prompt
 * panels too, {@link #decodePanel}, and embedding rows, {@link #decode}), so the model file's pages for
 * it can be let go.
 * The model file is read through a native view of its mapping ({@code GGUFFile.open}), and the cache
 * file likewise, so that every vector load in the engine meets one segment class: beside a second
 * class, C2 kept a class check and a session check inside the kernels' loops. Reading the copy from a Java array would be faster still (its int index
 * checks hoist where a segment's long ones do not; session 8 measured 1.2-1.3x), but model weights stay
 * out of the Java heap by design.
 *
 * <p>The kernels call nothing but the Vector API, whose methods C2 inlines whatever the size of the
 * caller: past C2's node count for inlining, a call to a helper of our own is left as a call, and the
 * vectors it takes or returns are boxed on the heap (a pair-sum helper cost the Q4_K kernel half its
 * speed, session 8). For the same reason the integer sums convert to floats with a named species
 * ({@code convertShape(I2F, F8, 0)}): {@code convert(I2F, 0)} works the species out at run time, and on
 * some starts C2 left that as virtual calls and boxed the kernel. What else runs in the process matters
 * too, since the Vector API's shared methods keep one profile for all their callers. A zero-extending
 * conversion ({@code ZERO_EXTEND_*}) ends, inside the JDK's shared {@code AbstractVector.convert0}, in a
 * virtual call on what the conversion intrinsic returns, which C2 resolves from that one call site's
 * profile: once anything else in the process had zero-extended to another class (the row and panel
 * decodings took {@code ZERO_EXTEND_B2I} and {@code ZERO_EXTEND_S2I}), a Q4_0 or Q4_K kernel compiled
 * afterwards (they took {@code ZERO_EXTEND_B2S}) could run boxed: some serve starts decoded 30-60%
 * slower (Q4_0 2 of 6 starts in session 12, none of 5 once the decodings sign-extended, session 13).
 * Even with the kernels the only zero-extension left, a test JVM that had run other tests first (an F16
 * model's forward passes among them) found the Q4_0 and Q4_K kernels boxed (one run in a few, session
 * 14). So nothing in the engine zero-extends: everything sign-extends ({@code B2S}, {@code B2I},
 * {@code S2I}: plain casts, with no such call) and masks, the nibble kernels at the cost of one mask
 * more per step for the high nibbles (within the noise of a one-thread 2048 x 2048 product, session 14).
 * {@code InterleavedKernelsAllocateNothingTest} checks the kernels in a fresh JVM after prompt products.
 *
 * <p>The same holds for the Vector API's convenience methods: {@code add}, {@code mul}, {@code and},
 * {@code fma}, a shift or product by a scalar, {@code reinterpretAsInts} are final, and call an abstract
 * method of the vector inside the JDK, at one call site for every caller in the process. C2 picks that
 * call's target from its receiver profile before it knows the kernel's exact classes; with the engine's
 * 256-bit floats and ints (norms, attention, the activations' quantization) beside the kernels' 512-bit
 * ones in that profile, it inlined both and boxed the vectors where the two paths met: the 1B Q4_0
 * decoded at 15-19 t/s instead of 35-44 on 3 of 11 bench starts, with JFR allocation samples in
 * {@code IntVector.add}, {@code FloatVector.fma} and {@code mul(float)} inside the kernel (session 16).
 * So the kernels call {@code lanewise(op, vector)}, {@code convertShape} and {@code reinterpretShape},
 * which are abstract and dispatch at the kernel's own call site, where only the kernel's classes are seen,
 * and broadcast scalars (shift counts, masks, offsets, scales) into vectors first;
 * {@code KernelsDispatchAtTheirOwnCallSitesTest} reads the bytecode for any other call.
 * This did not cure the Q4_K and Q6_K kernels, which still compiled boxed on most {@code bench} starts of
 * the 1B Q4_K_M. That cause was C2's trap limit (session 18): it sums the uncommon traps recorded in
 * every method it inlines, and the kernels inline the Vector API's small shared helpers
 * ({@code VectorOperators.opKind}, {@code opCode}) hundreds of times, so a few deoptimizations inside them
 * anywhere in the process passed {@code PerMethodTrapLimit} (100) and C2 stopped inlining behind class
 * checks, leaving the vector calls on the loops' carried sums virtual. The JVMs run with
 * {@code -XX:PerMethodTrapLimit=1000000} ({@code ./inferd}, the pom's {@code jvm.flags}); the allocation
 * test checks the kernels after such deoptimizations.
 *
 * <p>Only the final stores ({@code intoArray}) dispatch inside the JDK, once per call, and their
 * receivers must be of a class C2 knows: on the accumulators carried by the loop, whose class it does
 * not prove, it resolved the store's inner calls from their profile, shared with the engine's 256-bit
 * floats, and once the JDK method's record of deoptimizations passed
 * {@code PerMethodRecompilationCutoff / 2} it left them virtual and boxed the accumulators on every
 * block: Q8_0 decoded 10-20% slower with some 1,450 young collections per bench instead of 150, on 7 of
 * 15 starts (session 18). So the kernels store {@code acc.lanewise(ADD, -0)}, the same bits (x + -0 is
 * x for every x, -0 included), a vector of the exact class. Q4_0's did not for a while: there the extra
 * operation tipped C2 into a slower shape on 5 of 6 starts (26-27 t/s against 30-35; one of its
 * speculative class checks in {@code AbstractVector.sameSpecies} failed during warm-up and the
 * recompiled kernel lost all 98 of them, session 19). Since the warm-up compiles the kernels first
 * (session 20) that no longer showed (four alternated starts, 34.7-43.1 t/s against 25.2-37.4, session
 * 21), while with plain stores 2 of 10 starts decoded at some 850 collections instead of 200 and the
 * allocation test found the Q4_0 kernel allocating 6-21 KB a call in 2 of 6 runs; with these stores the
 * one failure in 5 runs was 80 bytes a call (one vector). That last box was the same cutoff met inside
 * the kernel's own compile, on a store whose receiver C2 did not prove exact: the JVMs now also run with
 * {@code -XX:PerMethodRecompilationCutoff} and {@code -XX:PerBytecodeRecompilationCutoff} raised to a
 * million (session 22: the allocation test's case after deoptimizations failed in 3 of 25 runs, on Q4_0's
 * and Q8_0's kernels, and in none of 30 with them). A slower shape that allocates nothing is
 * seen by no test here; {@code bench} sees it.
 *
 * <p>How C2 compiles a kernel matters as much as its arithmetic (session 10). A loop over a block's
 * steps is split into pre-, main and post-loops with the segment's long range checks recomputed
 * around every block, and a field read for the copy is reloaded and spilled there too: the Q4_0 kernel
 * with its eight steps written out and the segment in a local ran 1.45x faster. A loop over sub-blocks
 * nested in one over super-blocks is split the same way, so the k-quant kernels run one loop over all
 * of a row's sub-blocks with the super-block's step on every last one (1.8x, session 11). Written out too far,
 * a body passes C2's inlining budget and runs boxed, a hundred times slower (all sixteen Q8_0 steps);
 * {@code InterleavedKernelsAllocateNothingTest} watches for that.
 */
abstract sealed class InterleavedRows permits Q8_0Interleaved, Q4_0Interleaved, Q4_KInterleaved, Q5_KInterleaved, Q6_KInterleaved {
    /**
     * Rows interleaved in a group, a lane each: 16 where the machine has 512-bit vectors (AVX-512), else 8.
     * The kernels' integer products run in 16-bit lanes, two values of every row of the group a vector,
     * so the group follows the vector width; with 8 rows on an AVX-512 machine the 1B Q4_0 decoded at half
     * of llama.cpp's speed (session 15). The property {@value #GROUP_PROPERTY} (8 or 16) overrides it, for
     * tests of the other layout; a copy cache records the group size ({@link CopyCacheFile}).
     */
    static final int GROUP = groupRows();
    static final String GROUP_PROPERTY = "inferd.interleavedGroup";
    /** Rows per {@link #dot}: two groups share each activation broadcast. */
    static final int ROWS_PER_PASS = 2 * GROUP;
    /** Bytes of a step: two values of each of a group's rows, which the kernels widen to shorts (Q8_0). */
    static final int STEP_BYTES = 2 * GROUP;
    /**
     * Bytes of a step read as it lies, a {@link #STEP_S} vector: two 16-bit lanes for each of a group's rows,
     * several values packed in a lane (Q4_0 and Q4_K four, Q5_K three; Q6_K eight to three lanes).
     */
    static final int LANE_STEP_BYTES = 4 * GROUP;

    /** A step's bytes, widened to its shorts; a group's bytes, shorts, ints and floats (a lane a row). */
    static final VectorSpecies<Byte> STEP_B = GROUP == 16 ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128;
    static final VectorSpecies<Short> STEP_S = GROUP == 16 ? ShortVector.SPECIES_512 : ShortVector.SPECIES_256;
    static final VectorSpecies<Byte> GROUP_B = GROUP == 16 ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64;
    static final VectorSpecies<Short> GROUP_S = GROUP == 16 ? ShortVector.SPECIES_256 : ShortVector.SPECIES_128;
    static final VectorSpecies<Integer> GROUP_I = GROUP == 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    static final VectorSpecies<Float> GROUP_F = GROUP == 16 ? FloatVector.SPECIES_512 : FloatVector.SPECIES_256;
    /** For decoding one row's values ({@link #decode}), whatever the group. */
    static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    static final VectorSpecies<Long> L2 = LongVector.SPECIES_128;
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);

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
    final MemorySegment data;
    /** Blocks per row (blocks of 32 values, or super-blocks of 256). */
    final int blocks;
    /** Bytes of one pass's blocks, both groups'. */
    final long passBytes;
    /** Bytes of a block in the copy (a group's rows) and in the stored matrix (one row). */
    private final int blockBytes;
    private final int storedBlockBytes;

    /** A copy of a {@code rows x cols} matrix of {@code type}, {@code blockBytes} per block of a group, in {@code memory}. */
    InterleavedRows(GGMLType type, int rows, int cols, int blockBytes, MemorySegment memory) {
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
    static boolean fits(int rows) {
        return rows % ROWS_PER_PASS == 0;
    }

    /** Bytes of the copy a {@code rows x cols} matrix of {@code type} gets, or 0 where the type or shape gets none. */
    static long copyBytes(GGMLType type, int rows, int cols) {
        int blockBytes = switch (type) {
            case Q8_0 -> Q8_0Interleaved.BLOCK_BYTES;
            case Q4_0 -> Q4_0Interleaved.BLOCK_BYTES;
            case Q4_K -> Q4_KInterleaved.BLOCK_BYTES;
            case Q5_K -> Q5_KInterleaved.BLOCK_BYTES;
            case Q6_K -> Q6_KInterleaved.BLOCK_BYTES;
            default -> 0;
        };
        if (blockBytes == 0 || !fits(rows) || cols % type.blockSize() != 0) return 0;
        return (long) rows / GROUP * (cols / type.blockSize()) * blockBytes;
    }

    /**
     * The copy of the stored matrix {@code stored} (tensor {@code tensor}), in memory from {@code store}
     * and filled unless that memory holds it already; null where the type or shape gets none.
     */
    static InterleavedRows of(GGMLType type, MemorySegment stored, int rows, int cols, CopyStore store, String tensor) {
        long bytes = copyBytes(type, rows, cols);
        if (bytes == 0) return null;
        CopyStore.Slot slot = store.slot(tensor, bytes);
        InterleavedRows copy = switch (type) {
            case Q8_0 -> new Q8_0Interleaved(rows, cols, slot.memory());
            case Q4_0 -> new Q4_0Interleaved(rows, cols, slot.memory());
            case Q4_K -> new Q4_KInterleaved(rows, cols, slot.memory());
            case Q5_K -> new Q5_KInterleaved(rows, cols, slot.memory());
            case Q6_K -> new Q6_KInterleaved(rows, cols, slot.memory());
            default -> throw new IllegalArgumentException(type + " has no interleaved copy");
        };
        if (!slot.filled()) copy.fillFrom(stored, rows);
        return copy;
    }

    /** Group {@code group}'s rows of the stored matrix {@code stored}, copied into the layout block by block. */
    final void fill(MemorySegment stored, int group) {
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
    abstract void fillBlock(MemorySegment stored, long from, long pair, int place, int r);

    /** Every group of the {@code rows} copied from {@code stored}, on the shared worker pool. */
    final void fillFrom(MemorySegment stored, int rows) {
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
    abstract void dot(int pass, Q8Activations x, int b, float[] out, int outIndex);

    /**
     * As {@link #dot} for entries {@code b} and {@code b + 1}, into {@code out[outIndex ..)} and
     * {@code out[outIndex + stride ..)}, each bit for bit {@link #dot}'s result: generated tokens of a batch
     * go through here two by two. A type whose kernel decodes each step's weights once for both entries
     * overrides it; by default each entry takes {@link #dot}.
     */
    void dot2(int pass, Q8Activations x, int b, float[] out, int outIndex, int stride) {
        dot(pass, x, b, out, outIndex);
        dot(pass, x, b + 1, out, outIndex + stride);
    }

    /**
     * Row {@code row}'s blocks {@code [firstBlock, firstBlock + blockCount)} as floats into
     * {@code out[offset ..)}, bit for bit the stored matrix's decoding (llama.cpp's): the prompt panels
     * and embedding rows of a copied matrix come from here. Each type loops over its blocks itself: with
     * the loop here and a call per block, a prompt of 8 tokens on the 1B Q4_0 measured about 10% slower.
     */
    abstract void decode(int row, int firstBlock, int blockCount, float[] out, int offset);

    /**
     * Group {@code group}'s rows, blocks {@code [firstBlock, firstBlock + blockCount)}, into a prompt
     * panel ({@link TiledProduct}): column k's {@link #GROUP} values (k counted from the first block's first) at
     * {@code panel[k * stride + lane ..+ GROUP)}, each bit for bit what {@link #decode} gives. A step of the copy
     * already holds two columns of all the group's rows, so a column is a few vector operations where decoding
     * row by row and scattering the values into the panel one at a time had cost a prompt of 16 tokens
     * more than its products (session 12).
     */
    abstract void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane);

    /**
     * The copies that keep their scales as the file's halves (Q4_0, Q8_0; Q4_K's and Q5_K's d and dmin) widen them
     * as {@link F16Matrix} widens weights: a half's bits, sign-extended and moved up by 13, are a float 2^112 times
     * too small once the sign copies in bits 28-30 are masked off. Exact for every finite half; infinities and NaNs, which usable weights
     * do not hold, are not kept. As floats a block's scales are a fifth of a Q4_0 copy, and a token reads every
     * byte of it: the 1B Q4_0 decoded about 10% slower with them (session 26).
     */
    static final float HALF_EXPONENT_FIX = 0x1p112f;
    static final int HALF_SIGN_AND_MAGNITUDE = 0x8FFFFFFF;

    /** A group's scales stored as halves at {@code at}, as floats into {@code out[offset ..+ GROUP)}: the kernels' widening. */
    final void widenHalves(long at, float[] out, int offset) {
        ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, at, LE).convertShape(S2I, GROUP_I, 0))
                .lanewise(LSHL, IntVector.broadcast(GROUP_I, 13)).lanewise(AND, IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE))
                .reinterpretShape(GROUP_F, 0)).lanewise(MUL, FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX)).intoArray(out, offset);
    }

    /** Per-thread room for a block's row scales ({@code [0, GROUP)}) and mins ({@code [GROUP, 2 GROUP)}) while it goes into a panel. */
    static final ThreadLocal<float[]> PANEL_SCALES = ThreadLocal.withInitial(() -> new float[2 * GROUP]);

    /**
     * The step at {@code at} of a copy whose steps hold signed bytes (Q8_0): each row's two values
     * times its scale ({@code scales[r]}) into the panel's columns at {@code column} and {@code column + stride}.
     * Vectors stay inside: a helper that C2 leaves as a call boxes the vectors it takes.
     */
    final void signedStepToPanel(long at, float[] scales, float[] panel, int column, int stride) {
        var scale = FloatVector.fromArray(GROUP_F, scales, 0);
        var pairs = (IntVector) ShortVector.fromMemorySegment(GROUP_S, data, at, LE).convertShape(S2I, GROUP_I, 0);
        var low = pairs.lanewise(LSHL, IntVector.broadcast(GROUP_I, 24))
                .lanewise(ASHR, IntVector.broadcast(GROUP_I, 24));
        var high = pairs.lanewise(ASHR, IntVector.broadcast(GROUP_I, 8));
        ((FloatVector) low.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale).intoArray(panel, column);
        ((FloatVector) high.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)
                .intoArray(panel, column + stride);
    }

    /**
     * Nibble {@code n} of each row's 32 bits (its two 16-bit lanes) in the step of nibbles at {@code at}
     * (Q4_0, Q4_K: nibble f of lane {@code 2r + t} is row r's value {@code 8s + 2f + t} of step s, and of
     * the row's 32 bits it is nibble {@code n = 4t + f}), {@code (q - offset) * scales[r] - scales[GROUP + r]}
     * into the panel's column at {@code column}: the stored decodings' operations (Q4_0's min is zero, and
     * subtracting zero changes no float). Vectors stay inside: a helper that C2 leaves as a call boxes the
     * vectors it takes (the Q4_K PANEL case of InterleavedKernelsAllocateNothingTest allocated, session 17).
     */
    final void nibbleToPanel(long at, int n, int offset, float[] scales, float[] panel, int column) {
        // the step read as ints, a row's two lanes each, and every nibble masked
        var q = IntVector.fromMemorySegment(GROUP_I, data, at, LE).lanewise(LSHR, IntVector.broadcast(GROUP_I, 4 * n))
                .lanewise(AND, IntVector.broadcast(GROUP_I, 0xF)).lanewise(SUB, IntVector.broadcast(GROUP_I, offset));
        ((FloatVector) q.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, FloatVector.fromArray(GROUP_F, scales, 0))
                .lanewise(SUB, FloatVector.fromArray(GROUP_F, scales, GROUP)).intoArray(panel, column);
    }

    /**
     * The four steps of nibbles of a 32-value block of a pass's first group (from {@code steps0}) and of its second
     * (from {@code steps1}), as {@code q - 8} into 32 columns of an integer panel of {@link IntTiledProduct}: column
     * l's 32 values at {@code panel[column + l * stride ..)}, the first group's row j in lane {@code 2j}, the second
     * group's row j in lane {@code 2j + 1}. Read as ints, a step holds two columns of a group's rows in the halves
     * of each row's int ({@link #nibbleToPanel}), so a column of both groups is the two groups' low (or high)
     * halves put together. Q4_0 and Q4_K blocks of 32 share the layout. Only for groups of 16 rows.
     */
    final void nibbleStepsToShortPanel(long steps0, long steps1, short[] panel, int column, int stride) {
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
                ((ShortVector) even.reinterpretShape(STEP_S, 0)).lanewise(SUB, eight).intoArray(panel, at);
                ((ShortVector) odd.reinterpretShape(STEP_S, 0)).lanewise(SUB, eight).intoArray(panel, at + stride);
            }
        }
    }

    /** The column (of its 32-value block) of nibble {@code n} of a row's 32 bits in step s: see {@link #nibbleToPanel}. */
    static int nibbleColumn(int s, int n) {
        return 8 * s + 2 * (n % 4) + n / 4;
    }

    /** Row {@code r}'s value {@code l} (0..31, unsigned) of the four steps of nibbles from {@code steps}: see {@link #nibbleToPanel}. */
    final int nibble(long steps, int r, int l) {
        int s = l / 8, f = l % 8 / 2, t = l % 2;
        return data.get(SHORT, steps + (long) s * LANE_STEP_BYTES + 2L * (2 * r + t)) >>> 4 * f & 0x0F;
    }

    /**
     * Where block {@code block} of group {@code group}'s pass starts: both groups' bytes for those columns. The
     * two groups of a pass go block by block, so that a pass reads one stream: with each group's blocks in a
     * run of their own, a pass read two streams a group apart, and one thread streamed a Q4_0 matrix from
     * memory at 0.6 of the speed (session 15). Within the block too the kernels' reads should go forward:
     * the k-quant copies had each group's scales first and its values after, and a kernel reading a
     * sub-block's values from both groups and then their scales got 15 GB/s from memory on one thread
     * where plain streaming got 25 (session 21), so those copies merge the groups in reading order, and so
     * does Q8_0's, whose kernel reads half a block of each group at a time (17 GB/s against 25), and Q4_0's
     * (both groups' scales, then each group's values).
     */
    final long pairAt(int group, int block) {
        return group / 2 * passBytes + 2L * block * blockBytes;
    }

    /**
     * Row {@code r}'s sixteen bytes of the eight steps from {@code steps}, in its own order (in the copies'
     * step layout, bytes {@code 2r} and {@code 2r + 1} of step s hold the row's bytes 2s and 2s + 1).
     */
    final ByteVector rowBytes(long steps, int r) {
        return (ByteVector) LongVector.zero(L2).withLane(0, rowBytes(steps, r, 0)).withLane(1, rowBytes(steps, r, 1)).reinterpretShape(ByteVector.SPECIES_128, 0);
    }

    /** Eight of {@link #rowBytes(long, int)}'s bytes as a long: {@code half} 0 from steps 0-3, 1 from steps 4-7. */
    private long rowBytes(long steps, int r, int half) {
        long at = steps + 2L * r + (long) half * 4 * STEP_BYTES;
        return (data.get(SHORT, at) & 0xFFFFL) | (data.get(SHORT, at + STEP_BYTES) & 0xFFFFL) << 16
                | (data.get(SHORT, at + 2 * STEP_BYTES) & 0xFFFFL) << 32 | (long) data.get(SHORT, at + 3 * STEP_BYTES) << 48;
    }
}
