package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.tensor.vector.VectorClasses;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * The product of the prompt rows with a weight matrix: a register-tiled float GEMM. The weights are
 * decoded, {@link #DEPTH} columns at a time, into panels of {@link #WIDTH} rows laid out column by
 * column ({@code panel[k * WIDTH + i]} is row i's value k), the prompt rows are packed likewise, a tile of
 * {@link #ROWS} rows column by column, and the kernel keeps a tile of {@code ROWS} activation rows by
 * {@code WIDTH} weight rows in 24 vector registers (with AVX2's 16, two calls of six rows), adding one
 * column's outer product per step. Every
 * decoded weight then serves all the prompt rows, and each step needs two vector loads and twelve
 * broadcasts for 24 fused multiply-adds; on these machines that is about three times the per-row kernels'
 * speed for a 512-token prompt.
 *
 * <p>Batch invariance: every output is one chain of fused multiply-adds over the columns in order,
 * {@code c = fma(w[k], x[k], c)}, from zero. Tiles only decide which chains run side by side, and a
 * tile's partial sums wait in {@code out} between column blocks unchanged, so a row's result is the
 * same whatever the number of prompt rows around it (and whatever the block sizes). Rows past the
 * batch's end and weight rows past the matrix's end are computed from zeros in scratch tiles and
 * dropped.
 *
 * <p>Panels are packed column by column straight from an interleaved copy where the matrix has one
 * ({@link MappedMatrix#decodesPanels}): a column of eight rows is a few vector operations. Other matrices
 * pack a panel row by row, a scatter that costs as much as the products of a handful of rows, so a
 * few prompt rows (at most one vector's lanes: the end of a prompt, a short chat turn) take a narrow
 * kernel there instead, whose lanes run along the batch: the rows are transposed once
 * ({@code columns[k * LANES + b]}), and each weight row, decoded as stored, multiplies them one column
 * at a time. The narrow kernel computes every output by the same chain of fused multiply-adds, so a
 * row gets the same bits from either kernel. With an interleaved copy the panels win at every batch
 * size (one thread, a 2048 x 2048 product: 1, 4 and 8 rows of Q4_0 at 2.2, 9.4 and 12.7
 * GMAC/s against the narrow kernel's 1.2, 4.5 and 11.2; Q8_0, Q4_K and Q6_K alike), since the narrow
 * kernel's four chains wait on their fused multiply-adds and a lone row fills one lane of eight.
 * (Broadcasting a panel's columns against the transposed rows instead, a broadcast per weight and
 * column, measured slower at eight rows and no faster below.)
 *
 * <p>One per calling thread (in its {@link MappedMatrix.Job}); tasks split the panels (or the weight
 * rows), and each task's scratch is its worker thread's.
 */
public final class TiledProduct implements WorkerPool.Task {
    private static final VectorSpecies<Float> F = MappedMatrix.F;
    private static final int LANES = F.length();
    /**
     * The species' vector class: the kernels take each vector they load, and each accumulator that leaves their
     * loop, through {@code F_CLASS.cast}, so that no Vector API call in them dispatches on a shared type profile
     * ({@link VectorClasses}); without it, a product of 512 rows after ones of two and four ran boxed, 17 times slower for
     * good, in one run of twelve ({@code TiledProductStaysCompiledTest}). Not through a helper method: the kernel is
     * past C2's node budget for inlining one.
     */
    private static final Class<FloatVector> F_CLASS = MappedMatrix.F_CLASS;
    /** Weight rows per panel: two vectors. */
    public static final int WIDTH = 2 * LANES;
    /**
     * Activation rows per tile, packed side by side ({@link #packed}): with two accumulators each, 24 of
     * AVX-512's 32 vector registers. One thread on an Intel Xeon in L1, 12 packed rows ran at 167-194
     * GFLOP/s against 133-159 for six rows read in place: 0.75-0.9 of its two multiply-adds a cycle.
     */
    public static final int ROWS = 12;
    /** Whether {@link #kernel}'s 24 accumulators fit the registers (AVX-512's 32; AVX2 has 16). */
    private static final boolean WIDE = LANES >= 16;
    /**
     * Columns per panel: a multiple of every block size, a panel that fills L1 (32 KB at 8 lanes) and
     * a block of prompt rows ({@code ROWS x DEPTH} each) that the panels of a task reuse from L2. Each
     * depth reads and writes the outputs once more (a tenth of a product's samples went to those
     * stores at 256); 512 measured 13% faster than 256 on a 2048 x 2048 Q4_0 product of 512 rows.
     */
    public static final int DEPTH = 512;
    /** Weight rows per call of the narrow kernel. */
    private static final int NARROW_ROWS = 4;
    /** Tasks per pool thread: few, since each task streams the whole prompt block through its panels. */
    private static final int TASKS_PER_THREAD = 2;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private MappedMatrix matrix;
    private float[] x;
    /** Where the prompt rows are first rounded to llama.cpp's int8 activations (the integer types), else null. */
    private Q8Activations rounding;
    private float[] out;
    private int batch;
    /** For the narrow kernel: the prompt rows transposed, {@code columns[k * LANES + b]}, zeros past the batch. */
    private float[] columns = new float[0];
    /**
     * For the panels: the prompt rows packed once a product, by {@link #packing}'s tasks, for every depth and
     * tile: depth block j's tile t has value k of row i at {@code [j * tiles * ROWS * DEPTH + t * ROWS * depth +
     * k * ROWS + i]} ({@code depth} the block's width), zeros past the batch's end. Each task of the product then
     * reads a depth's block, where each once packed its own copy.
     */
    private float[] packed = new float[0];
    private final WorkerPool.Task packing = this::pack;

    /**
     * The product of the {@code batch} rows of x with the matrix, into out; with a rounding {@code block} (not 0),
     * of the rows first rounded to the matrix's int8 activations in {@code quantized}, whose arrays are then
     * overwritten ({@link MappedMatrix#promptRounding}).
     */
    public void start(MappedMatrix matrix, float[] x, int batch, float[] out, Q8Activations quantized, int block) {
        this.matrix = matrix;
        this.x = x;
        this.batch = batch;
        this.out = out;
        this.rounding = block > 0 ? quantized : null;
        if (rounding != null) rounding.reserve(batch, matrix.cols, block);
        if (narrow()) {
            if (rounding != null) rounding.quantizeRows(x, 0, batch); // a few rows: not worth the pool
            transpose();
        } else {
            int size = Math.ceilDiv(batch, ROWS) * ROWS * matrix.cols;
            if (packed.length < size) packed = new float[size];
        }
    }

    /** The tasks that pack the rows ({@link #packingTasks} of them), to run to their end before this product's. */
    public WorkerPool.Task packing() {
        return packing;
    }

    /** None for the narrow kernel, else a share of the tiles for each thread. */
    public int packingTasks() {
        return narrow() ? 0 : Math.min(Math.ceilDiv(batch, ROWS), WorkerPool.shared().threads());
    }

    private boolean narrow() {
        return batch <= LANES && !matrix.decodesPanels();
    }

    private void transpose() {
        int cols = matrix.cols;
        if (columns.length < cols * LANES) columns = new float[cols * LANES];
        Arrays.fill(columns, 0, cols * LANES, 0f);
        for (int b = 0; b < batch; b++) {
            for (int k = 0; k < cols; k++) columns[k * LANES + b] = value(b * cols + k);
        }
    }

    /** Value i of the rows as the product takes it. */
    private float value(int i) {
        return rounding != null ? rounding.rounded(i) : x[i];
    }

    /** Packing task {@code task}: its tiles' rows, quantized first where they are rounded, into {@link #packed}. */
    private void pack(int task, int worker) {
        int tiles = Math.ceilDiv(batch, ROWS);
        int tasks = packingTasks();
        int from = tiles * task / tasks, to = tiles * (task + 1) / tasks;
        if (rounding != null) rounding.quantizeRows(x, from * ROWS, Math.min(batch, to * ROWS));
        int cols = matrix.cols;
        for (int k0 = 0; k0 < cols; k0 += DEPTH) {
            int depth = Math.min(DEPTH, cols - k0);
            int slice = sliceAt(k0);
            for (int t = from; t < to; t++) {
                int tileAt = slice + t * ROWS * depth;
                for (int i = 0; i < ROWS; i++) {
                    int b = t * ROWS + i;
                    int row = b * cols + k0;
                    if (b >= batch) {
                        for (int k = 0; k < depth; k++) packed[tileAt + k * ROWS + i] = 0f;
                    } else if (rounding != null) {
                        for (int k = 0; k < depth; k++) packed[tileAt + k * ROWS + i] = rounding.rounded(row + k);
                    } else {
                        for (int k = 0; k < depth; k++) packed[tileAt + k * ROWS + i] = x[row + k];
                    }
                }
            }
        }
    }

    /** Where the slice of {@link #packed} for the depth block from column {@code k0} starts: the tiles of every depth before it. */
    private int sliceAt(int k0) {
        return k0 / DEPTH * Math.ceilDiv(batch, ROWS) * ROWS * DEPTH;
    }

    public void clear() {
        matrix = null;
        x = null;
        rounding = null;
        out = null;
    }

    public int tasks() {
        return Math.min(units(), WorkerPool.shared().threads() * TASKS_PER_THREAD);
    }

    /** What the tasks split: panels, or groups of weight rows for the narrow kernel. */
    private int units() {
        return Math.ceilDiv(matrix.rows, narrow() ? NARROW_ROWS : WIDTH);
    }

    @Override
    public void run(int task, int worker) {
        int units = units();
        int tasks = tasks();
        int from = (int) ((long) units * task / tasks);
        int to = (int) ((long) units * (task + 1) / tasks);
        if (narrow()) {
            multiplyNarrow(SCRATCH.get(), from * NARROW_ROWS, Math.min(matrix.rows, to * NARROW_ROWS));
        } else {
            multiplyPanels(SCRATCH.get(), from, to);
        }
    }

    /**
     * Weight rows {@code [from, to)} with the few prompt rows in {@link #columns}, four weight rows at a
     * time; a last group cut short by the matrix's end is padded with zero rows, whose sums are dropped.
     */
    private void multiplyNarrow(Scratch s, int from, int to) {
        int cols = matrix.cols;
        float[] w = s.weightRows(NARROW_ROWS * cols);
        float[] lanes = s.lanes;
        for (int r = from; r < to; r += NARROW_ROWS) {
            int count = Math.min(NARROW_ROWS, to - r);
            for (int i = 0; i < count; i++) matrix.dequantize((r + i) * matrix.rowBytes, cols, w, i * cols);
            if (count < NARROW_ROWS) Arrays.fill(w, count * cols, NARROW_ROWS * cols, 0f);
            narrowKernel(columns, w, cols, lanes);
            for (int i = 0; i < count; i++) {
                for (int b = 0; b < batch; b++) out[b * matrix.rows + r + i] = lanes[i * LANES + b];
            }
        }
    }

    /**
     * Four weight rows ({@code w[i * cols ..]}) with the transposed prompt rows: lane b of vector i into
     * {@code lanes[i * LANES + b]}, each {@code fma(x[k], w[k], c)} over k in order from zero, the
     * panel kernel's chain.
     */
    public static void narrowKernel(float[] columns, float[] w, int cols, float[] lanes) {
        int w1 = cols, w2 = 2 * cols, w3 = 3 * cols;
        var c0 = FloatVector.zero(F);
        var c1 = FloatVector.zero(F);
        var c2 = FloatVector.zero(F);
        var c3 = FloatVector.zero(F);
        for (int k = 0; k < cols; k++) {
            var v = F_CLASS.cast(FloatVector.fromArray(F, columns, k * LANES));
            c0 = v.fma(FloatVector.broadcast(F, w[k]), c0);
            c1 = v.fma(FloatVector.broadcast(F, w[w1 + k]), c1);
            c2 = v.fma(FloatVector.broadcast(F, w[w2 + k]), c2);
            c3 = v.fma(FloatVector.broadcast(F, w[w3 + k]), c3);
        }
        F_CLASS.cast(c0).intoArray(lanes, 0);
        F_CLASS.cast(c1).intoArray(lanes, LANES);
        F_CLASS.cast(c2).intoArray(lanes, 2 * LANES);
        F_CLASS.cast(c3).intoArray(lanes, 3 * LANES);
    }

    /** Panels {@code [from, to)} (weight rows {@code from * WIDTH ..}) with every prompt row. */
    private void multiplyPanels(Scratch s, int from, int to) {
        int cols = matrix.cols;
        int rows = matrix.rows;
        int tiles = Math.ceilDiv(batch, ROWS);
        for (int k0 = 0; k0 < cols; k0 += DEPTH) {
            int depth = Math.min(DEPTH, cols - k0);
            boolean first = k0 == 0;
            int slice = sliceAt(k0);
            for (int p = from; p < to; p++) {
                int r0 = p * WIDTH;
                int width = Math.min(WIDTH, rows - r0);
                s.pack(matrix, r0, width, k0, depth);
                for (int t = 0; t < tiles; t++) {
                    int b = t * ROWS;
                    int count = Math.min(ROWS, batch - b);
                    if (count == ROWS && width == WIDTH) {
                        tile(packed, slice + b * depth, s.panel, depth, out, b * rows + r0, rows, first);
                    } else {
                        s.throughTile(packed, slice + b * depth, depth, out, b, count, r0, width, rows, first);
                    }
                }
            }
        }
    }

    /**
     * A full tile: {@code c[cOffset + i * cStride + j] (+)= sum over k < depth of a[aOffset + k * ROWS + i] * panel[k * WIDTH + j]}
     * for {@code i < ROWS}, {@code j < WIDTH}, from zero when {@code first}, else continuing the sums in c. With 32
     * vector registers one call of {@link #kernel}; with 16 (AVX2), whose 24 accumulators would not fit, two calls of
     * {@link #kernel6}.
     */
    private static void tile(float[] a, int aOffset, float[] panel, int depth, float[] c, int cOffset, int cStride, boolean first) {
        if (WIDE) {
            kernel(a, aOffset, panel, depth, c, cOffset, cStride, first);
        } else {
            kernel6(a, aOffset, panel, depth, c, cOffset, cStride, first);
            kernel6(a, aOffset + ROWS / 2, panel, depth, c, cOffset + ROWS / 2 * cStride, cStride, first);
        }
    }

    /**
     * {@link #tile}'s sums for all {@link #ROWS} rows of a packed tile, {@code a[aOffset + k * ROWS + i]}: every
     * broadcast is then one address off the step's index, where rows {@code cols} apart took an address computation
     * each (an {@code lea}, 31 instructions a step against 12 multiply-adds). The 24 accumulators are written out
     * as locals on purpose: they are the registers, and vectors kept in an array or passed to a helper that C2 may
     * not inline are boxed on the heap. The JVMs keep the kernels out of their callers
     * ({@code -XX:CompileCommand=dontinline}, as for the row kernels' {@code dot2}): after prompt products of two
     * and then four rows, C2 compiled the six-row kernel with its multiply-adds as the Vector API's Java code, 17
     * times slower for good ({@code TiledProductStaysCompiledTest}).
     */
    public static void kernel(float[] a, int aOffset, float[] panel, int depth, float[] c, int cOffset, int cStride, boolean first) {
        int o0 = cOffset, o1 = o0 + cStride, o2 = o1 + cStride, o3 = o2 + cStride, o4 = o3 + cStride, o5 = o4 + cStride, o6 = o5 + cStride, o7 = o6 + cStride, o8 = o7 + cStride, o9 = o8 + cStride, o10 = o9 + cStride, o11 = o10 + cStride;
        var c00 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0);
        var c01 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0 + LANES);
        var c10 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1);
        var c11 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1 + LANES);
        var c20 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o2);
        var c21 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o2 + LANES);
        var c30 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o3);
        var c31 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o3 + LANES);
        var c40 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o4);
        var c41 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o4 + LANES);
        var c50 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o5);
        var c51 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o5 + LANES);
        var c60 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o6);
        var c61 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o6 + LANES);
        var c70 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o7);
        var c71 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o7 + LANES);
        var c80 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o8);
        var c81 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o8 + LANES);
        var c90 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o9);
        var c91 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o9 + LANES);
        var c100 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o10);
        var c101 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o10 + LANES);
        var c110 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o11);
        var c111 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o11 + LANES);
        for (int k = 0, ak = aOffset, pk = 0; k < depth; k++, ak += ROWS, pk += WIDTH) {
            var w0 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk));
            var w1 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk + LANES));
            var v = FloatVector.broadcast(F, a[ak]);
            c00 = w0.fma(v, c00);
            c01 = w1.fma(v, c01);
            v = FloatVector.broadcast(F, a[ak + 1]);
            c10 = w0.fma(v, c10);
            c11 = w1.fma(v, c11);
            v = FloatVector.broadcast(F, a[ak + 2]);
            c20 = w0.fma(v, c20);
            c21 = w1.fma(v, c21);
            v = FloatVector.broadcast(F, a[ak + 3]);
            c30 = w0.fma(v, c30);
            c31 = w1.fma(v, c31);
            v = FloatVector.broadcast(F, a[ak + 4]);
            c40 = w0.fma(v, c40);
            c41 = w1.fma(v, c41);
            v = FloatVector.broadcast(F, a[ak + 5]);
            c50 = w0.fma(v, c50);
            c51 = w1.fma(v, c51);
            v = FloatVector.broadcast(F, a[ak + 6]);
            c60 = w0.fma(v, c60);
            c61 = w1.fma(v, c61);
            v = FloatVector.broadcast(F, a[ak + 7]);
            c70 = w0.fma(v, c70);
            c71 = w1.fma(v, c71);
            v = FloatVector.broadcast(F, a[ak + 8]);
            c80 = w0.fma(v, c80);
            c81 = w1.fma(v, c81);
            v = FloatVector.broadcast(F, a[ak + 9]);
            c90 = w0.fma(v, c90);
            c91 = w1.fma(v, c91);
            v = FloatVector.broadcast(F, a[ak + 10]);
            c100 = w0.fma(v, c100);
            c101 = w1.fma(v, c101);
            v = FloatVector.broadcast(F, a[ak + 11]);
            c110 = w0.fma(v, c110);
            c111 = w1.fma(v, c111);
        }
        F_CLASS.cast(c00).intoArray(c, o0);
        F_CLASS.cast(c01).intoArray(c, o0 + LANES);
        F_CLASS.cast(c10).intoArray(c, o1);
        F_CLASS.cast(c11).intoArray(c, o1 + LANES);
        F_CLASS.cast(c20).intoArray(c, o2);
        F_CLASS.cast(c21).intoArray(c, o2 + LANES);
        F_CLASS.cast(c30).intoArray(c, o3);
        F_CLASS.cast(c31).intoArray(c, o3 + LANES);
        F_CLASS.cast(c40).intoArray(c, o4);
        F_CLASS.cast(c41).intoArray(c, o4 + LANES);
        F_CLASS.cast(c50).intoArray(c, o5);
        F_CLASS.cast(c51).intoArray(c, o5 + LANES);
        F_CLASS.cast(c60).intoArray(c, o6);
        F_CLASS.cast(c61).intoArray(c, o6 + LANES);
        F_CLASS.cast(c70).intoArray(c, o7);
        F_CLASS.cast(c71).intoArray(c, o7 + LANES);
        F_CLASS.cast(c80).intoArray(c, o8);
        F_CLASS.cast(c81).intoArray(c, o8 + LANES);
        F_CLASS.cast(c90).intoArray(c, o9);
        F_CLASS.cast(c91).intoArray(c, o9 + LANES);
        F_CLASS.cast(c100).intoArray(c, o10);
        F_CLASS.cast(c101).intoArray(c, o10 + LANES);
        F_CLASS.cast(c110).intoArray(c, o11);
        F_CLASS.cast(c111).intoArray(c, o11 + LANES);
    }


    /** {@link #kernel} for the packed tile's first six rows: AVX2's tile in two halves, and its tails of three to six rows. */
    public static void kernel6(float[] a, int aOffset, float[] panel, int depth, float[] c, int cOffset, int cStride, boolean first) {
        int o0 = cOffset, o1 = o0 + cStride, o2 = o1 + cStride, o3 = o2 + cStride, o4 = o3 + cStride, o5 = o4 + cStride;
        var c00 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0);
        var c01 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0 + LANES);
        var c10 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1);
        var c11 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1 + LANES);
        var c20 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o2);
        var c21 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o2 + LANES);
        var c30 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o3);
        var c31 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o3 + LANES);
        var c40 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o4);
        var c41 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o4 + LANES);
        var c50 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o5);
        var c51 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o5 + LANES);
        for (int k = 0, ak = aOffset, pk = 0; k < depth; k++, ak += ROWS, pk += WIDTH) {
            var w0 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk));
            var w1 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk + LANES));
            var v = FloatVector.broadcast(F, a[ak]);
            c00 = w0.fma(v, c00);
            c01 = w1.fma(v, c01);
            v = FloatVector.broadcast(F, a[ak + 1]);
            c10 = w0.fma(v, c10);
            c11 = w1.fma(v, c11);
            v = FloatVector.broadcast(F, a[ak + 2]);
            c20 = w0.fma(v, c20);
            c21 = w1.fma(v, c21);
            v = FloatVector.broadcast(F, a[ak + 3]);
            c30 = w0.fma(v, c30);
            c31 = w1.fma(v, c31);
            v = FloatVector.broadcast(F, a[ak + 4]);
            c40 = w0.fma(v, c40);
            c41 = w1.fma(v, c41);
            v = FloatVector.broadcast(F, a[ak + 5]);
            c50 = w0.fma(v, c50);
            c51 = w1.fma(v, c51);
        }
        F_CLASS.cast(c00).intoArray(c, o0);
        F_CLASS.cast(c01).intoArray(c, o0 + LANES);
        F_CLASS.cast(c10).intoArray(c, o1);
        F_CLASS.cast(c11).intoArray(c, o1 + LANES);
        F_CLASS.cast(c20).intoArray(c, o2);
        F_CLASS.cast(c21).intoArray(c, o2 + LANES);
        F_CLASS.cast(c30).intoArray(c, o3);
        F_CLASS.cast(c31).intoArray(c, o3 + LANES);
        F_CLASS.cast(c40).intoArray(c, o4);
        F_CLASS.cast(c41).intoArray(c, o4 + LANES);
        F_CLASS.cast(c50).intoArray(c, o5);
        F_CLASS.cast(c51).intoArray(c, o5 + LANES);
    }


    /**
     * {@link #kernel} for the packed tile's first two rows: a tail of one or two prompt rows (a short chunk, the
     * end of a prompt) would otherwise run a whole tile of zeros. One thread, a 2048 x 2048 Q4_0 product of 1
     * and 2 prompt rows: 2.55 -> 2.85 and 5.4 -> 6.35 GMAC/s against the six-row kernel.
     */
    public static void kernel2(float[] a, int aOffset, float[] panel, int depth, float[] c, int cOffset, int cStride, boolean first) {
        int o0 = cOffset, o1 = o0 + cStride;
        var c00 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0);
        var c01 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o0 + LANES);
        var c10 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1);
        var c11 = first ? FloatVector.zero(F) : FloatVector.fromArray(F, c, o1 + LANES);
        for (int k = 0, ak = aOffset, pk = 0; k < depth; k++, ak += ROWS, pk += WIDTH) {
            var w0 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk));
            var w1 = F_CLASS.cast(FloatVector.fromArray(F, panel, pk + LANES));
            var v = FloatVector.broadcast(F, a[ak]);
            c00 = w0.fma(v, c00);
            c01 = w1.fma(v, c01);
            v = FloatVector.broadcast(F, a[ak + 1]);
            c10 = w0.fma(v, c10);
            c11 = w1.fma(v, c11);
        }
        F_CLASS.cast(c00).intoArray(c, o0);
        F_CLASS.cast(c01).intoArray(c, o0 + LANES);
        F_CLASS.cast(c10).intoArray(c, o1);
        F_CLASS.cast(c11).intoArray(c, o1 + LANES);
    }


    /** A worker's panel and its tiles for the edges. */
    private static final class Scratch {
        public final float[] panel = new float[DEPTH * WIDTH];
        public final float[] row = new float[DEPTH];
        /** A tile's sums for edges: {@code ROWS x WIDTH}. */
        public final float[] tile = new float[ROWS * WIDTH];
        /** The narrow kernel's sums: {@code NARROW_ROWS} vectors. */
        public final float[] lanes = new float[NARROW_ROWS * LANES];
        private float[] weightRows = new float[0];

        /** Decoded weight rows for the narrow kernel. */
        public float[] weightRows(int size) {
            if (weightRows.length < size) weightRows = new float[size];
            return weightRows;
        }

        /** Decodes weight rows {@code [r0, r0 + width)}, columns {@code [k0, k0 + depth)} into {@link #panel}: by columns where the matrix can, else row by row. */
        public void pack(MappedMatrix m, int r0, int width, int k0, int depth) {
            if (width == WIDTH && m.decodePanel(r0, width, k0, depth, panel, WIDTH)) return;
            long columnBytes = m.type().bytesFor(k0);
            for (int i = 0; i < width; i++) {
                m.dequantize((r0 + i) * m.rowBytes + columnBytes, depth, row, 0);
                for (int k = 0; k < depth; k++) panel[k * WIDTH + i] = row[k];
            }
            for (int i = width; i < WIDTH; i++) {
                for (int k = 0; k < depth; k++) panel[k * WIDTH + i] = 0f;
            }
        }

        /**
         * A tile cut short by the batch's end ({@code count < ROWS}) or the matrix's ({@code width < WIDTH}): its
         * sums go through {@link #tile}, and only the real part goes back. The packed rows past the batch are
         * zeros, so a kernel of fewer rows than the tile's may take it: {@link #kernel2} a tail of one or two rows,
         * and with AVX2 {@link #kernel6} one of up to six. With AVX-512 a longer tail runs the whole tile, so that
         * two kernels serve every batch and both compile in the engine's warm-up ({@code WarmUp.PROMPT}): a kernel
         * first reached by a request runs as Java code until C2 has compiled it.
         */
        public void throughTile(float[] a, int aOffset, int depth, float[] out, int b0, int count,
                         int r0, int width, int rows, boolean first) {
            if (!first) {
                for (int i = 0; i < count; i++) System.arraycopy(out, (b0 + i) * rows + r0, tile, i * WIDTH, width);
            }
            if (count <= 2) {
                kernel2(a, aOffset, panel, depth, tile, 0, WIDTH, first);
            } else if (!WIDE && count <= ROWS / 2) {
                kernel6(a, aOffset, panel, depth, tile, 0, WIDTH, first);
            } else {
                TiledProduct.tile(a, aOffset, panel, depth, tile, 0, WIDTH, first);
            }
            for (int i = 0; i < count; i++) System.arraycopy(tile, i * WIDTH, out, (b0 + i) * rows + r0, width);
        }
    }
}
