package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.MUL;

/**
 * Many activation rows times a Q4_0 or Q4_K matrix's interleaved copy ({@link ShortPanels}): an integer GEMM in
 * 16-bit lanes, the integer counterpart of {@link TiledProduct}. The weights are decoded, {@link #DEPTH}
 * columns at a time, into panels of {@link #WIDTH} rows of {@code q - 8} as shorts, column by column
 * ({@link ShortPanels#decodeShortPanel}); the kernel keeps {@link #ROWS} activation rows by {@code WIDTH}
 * weight rows in sixteen registers of 32 short lanes and adds, per column, a 16-bit product of each weight with
 * its row's int8 activation ({@link Q8Activations}, broadcast). A block of 32 columns adds at most
 * {@code 32 * 8 * 127 = 32512} to a lane, inside 16 bits; after each block the sums go to a scratch array and,
 * after the panel, to floats by the copy's own row kernel's operations ({@link ShortPanels#sumsToFloats}).
 *
 * <p>The integer sums are the row kernel's integers (exact, reached in another order) and the float operations
 * are its own in the same order, so a row's result here is bit for bit the row kernel's, whatever the batch:
 * {@link IntDotMatrix} sends a batch through here or through the row kernels by its size alone, and a prompt row
 * gets the numbers a generated token would.
 *
 * <p>Why integers: a float GEMM does one multiply-add per lane per instruction, and these cores issue one
 * 512-bit fused multiply-add a cycle; a 16-bit multiply and a 16-bit add do 32 lanes in two instructions
 * that go to different pipes. A standalone probe with a panel in cache ran {@link TiledProduct}'s float
 * kernel at 55 GMAC/s on one thread and a kernel like this one at 90-94. Whole products of 512
 * rows on one thread ({@code MatMulBench 1 Q4_0 2048x2048,8192x2048,2048x8192 512 prompt}): 48-51 GMAC/s
 * through {@link TiledProduct}, 70-73 here for Q4_0, 59-66 for Q4_K (whose conversion does four 32-bit
 * multiplies per block of 32 and row pair).
 *
 * <p>Written for 512-bit vectors (two groups of 16 rows of the copy a vector), so used only where the copy's
 * groups are 16 rows ({@link #SUPPORTED}).
 */
public final class IntTiledProduct implements WorkerPool.Task {
    private static final VectorSpecies<Short> S = ShortVector.SPECIES_512;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_512;
    /** S's vector class, to type vectors exactly ({@link VectorClasses}). */
    private static final Class<ShortVector> S_CLASS = VectorClasses.of(S);
    /** Values per block of the kernel's sums (a scale's reach in Q4_0, a sub-block's in Q4_K). */
    public static final int BLOCK = 32;
    /** Weight rows per vector: a pass of the copy. */
    public static final int PASS = 32;
    /** Weight rows per panel: two vectors. */
    public static final int WIDTH = 2 * PASS;
    /** Activation rows per kernel call. */
    public static final int ROWS = 8;
    /**
     * Columns per panel: {@code WIDTH x DEPTH} shorts (256 KB) stay in L2 while the batch streams past, and the
     * outputs are read and written once per depth. One thread, 512 rows of the 1B's shapes: 256 columns ran
     * 51-65 GMAC/s, 512 63-65, 1024 67-70, 2048 71-74 (8192 x 2048: its 512 x 8192 outputs, 16 MB, went
     * through memory once per depth), 4096 no faster.
     */
    public static final int DEPTH = 2048;
    /**
     * Batches from this size on take this product, smaller ones the row kernels (the same bits either way): the
     * panels are decoded for every product (about 13 G weights a second on a thread), which a few rows do not
     * repay. Two threads, the 1B's three shapes: at 16 rows the row kernels were faster for one shape and slower
     * for another, at 32 this product was as fast or faster for all three, at 64 and 128 10-20% faster.
     * The property {@value #MIN_BATCH_PROPERTY} overrides it, for measuring the two paths at one size.
     */
    public static final String MIN_BATCH_PROPERTY = "inferd.intTiledMinBatch";
    public static final int MIN_BATCH = Integer.getInteger(MIN_BATCH_PROPERTY, 32);
    /** Tasks per pool thread: few, since each task streams the whole batch through its panels. */
    private static final int TASKS_PER_THREAD = 2;

    private static final ThreadLocal<Panel> SCRATCH = ThreadLocal.withInitial(Panel::new);

    private ShortPanels copy;
    private int rows;
    private int cols;
    private float[] input;
    private Q8Activations x;
    private int batch;
    private float[] out;
    /**
     * The quantized rows packed once a product, by {@link #packing}'s tasks, for every depth and tile: depth
     * block j's tile t has value k of row i at {@code [j * tiles * ROWS * DEPTH + t * ROWS * depth + k * ROWS +
     * i]} ({@code depth} the block's width), in both halves of the int; zeros past the batch's end (their sums are
     * never converted).
     */
    private int[] packed = new int[0];
    private final WorkerPool.Task packing = this::pack;

    /** Whether this machine's copies take this product: groups of 16 rows and 512-bit vectors. */
    public static final boolean SUPPORTED = InterleavedRows.GROUP == 16 && ShortVector.SPECIES_PREFERRED.length() >= S.length();

    /**
     * Rows {@code [0, batch)} of {@code input}, quantized into {@code x} in blocks of {@code block} (as the type
     * wants) by the packing tasks, times the {@code rows x cols} matrix copied in {@code copy}, into {@code
     * out[b * rows + r]}.
     */
    public void start(ShortPanels copy, int rows, int cols, float[] input, Q8Activations x, int block, int batch, float[] out) {
        this.copy = copy;
        this.rows = rows;
        this.cols = cols;
        this.input = input;
        this.x = x;
        this.batch = batch;
        this.out = out;
        x.reserve(batch, cols, block);
        int size = Math.ceilDiv(batch, ROWS) * ROWS * cols;
        if (packed.length < size) packed = new int[size];
    }

    /** The tasks that quantize and pack the rows ({@link #packingTasks} of them), to run to their end before this product's. */
    public WorkerPool.Task packing() {
        return packing;
    }

    /** A share of the tiles for each thread. */
    public int packingTasks() {
        return Math.min(Math.ceilDiv(batch, ROWS), WorkerPool.shared().threads());
    }

    /** Packing task {@code task}: its tiles' rows quantized, then packed into {@link #packed}. */
    private void pack(int task, int worker) {
        int tiles = Math.ceilDiv(batch, ROWS);
        int tasks = packingTasks();
        int from = tiles * task / tasks, to = tiles * (task + 1) / tasks;
        x.quantizeRows(input, from * ROWS, Math.min(batch, to * ROWS));
        short[] q = x.q;
        for (int k0 = 0; k0 < cols; k0 += DEPTH) {
            int depth = Math.min(DEPTH, cols - k0);
            int slice = sliceAt(k0);
            for (int t = from; t < to; t++) {
                int tileAt = slice + t * ROWS * depth;
                for (int i = 0; i < ROWS; i++) {
                    int b = t * ROWS + i;
                    if (b < batch) {
                        for (int k = 0, row = b * cols + k0; k < depth; k++) {
                            int v = q[row + k] & 0xFFFF;
                            packed[tileAt + k * ROWS + i] = v << 16 | v;
                        }
                    } else {
                        for (int k = 0; k < depth; k++) packed[tileAt + k * ROWS + i] = 0;
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
        copy = null;
        input = null;
        x = null;
        out = null;
    }

    public int tasks() {
        return Math.min(panels(), WorkerPool.shared().threads() * TASKS_PER_THREAD);
    }

    private int panels() {
        return Math.ceilDiv(rows, WIDTH);
    }

    @Override
    public void run(int task, int worker) {
        int panels = panels();
        int tasks = tasks();
        multiplyPanels(SCRATCH.get(), (int) ((long) panels * task / tasks), (int) ((long) panels * (task + 1) / tasks));
    }

    /** Panels {@code [from, to)} (weight rows {@code from * WIDTH ..}) with every activation row. */
    private void multiplyPanels(Panel s, int from, int to) {
        int block = copy.panelBlock();
        int tiles = Math.ceilDiv(batch, ROWS);
        for (int k0 = 0; k0 < cols; k0 += DEPTH) {
            int depth = Math.min(DEPTH, cols - k0);
            int blocks = depth / block;
            int firstBlock = k0 / block;
            boolean first = k0 == 0;
            int slice = sliceAt(k0);
            for (int p = from; p < to; p++) {
                int r0 = p * WIDTH;
                int width = Math.min(WIDTH, rows - r0);
                s.pack(copy, r0 / PASS, width / PASS, firstBlock, blocks);
                for (int t = 0; t < tiles; t++) {
                    int b = t * ROWS;
                    kernel(packed, slice + b * depth, s.values, depth, s.sums);
                    copy.sumsToFloats(s, firstBlock, blocks, x, b, Math.min(ROWS, batch - b), out, b * rows + r0, rows, width, first);
                }
            }
        }
    }

    /**
     * The integer sums of a packed tile's {@link #ROWS} activation rows ({@code a[aOffset + k * ROWS + i]}, each
     * value twice in an int, {@link #packed}) with the panel's {@link #WIDTH} rows, block by block: {@code
     * sums[(block * ROWS + i) * WIDTH + lane]}. The accumulators are locals on purpose: they are the registers,
     * and nothing but Vector API calls may touch them (see {@link InterleavedRows}: a helper C2 leaves out of line
     * boxes its vectors). Packed, the rows' values are one index off the step's (rows {@code cols} apart took an
     * address computation each), and a 32-bit broadcast is a load alone, where a 16-bit one also takes a shuffle
     * on a port the multiplies and adds need.
     */
    public static void kernel(int[] a, int aOffset, short[] panel, int depth, short[] sums) {
        for (int k0 = 0, s = 0, ak = aOffset; k0 < depth; k0 += BLOCK, s += ROWS * WIDTH) {
            var c00 = ShortVector.zero(S);
            var c01 = ShortVector.zero(S);
            var c10 = ShortVector.zero(S);
            var c11 = ShortVector.zero(S);
            var c20 = ShortVector.zero(S);
            var c21 = ShortVector.zero(S);
            var c30 = ShortVector.zero(S);
            var c31 = ShortVector.zero(S);
            var c40 = ShortVector.zero(S);
            var c41 = ShortVector.zero(S);
            var c50 = ShortVector.zero(S);
            var c51 = ShortVector.zero(S);
            var c60 = ShortVector.zero(S);
            var c61 = ShortVector.zero(S);
            var c70 = ShortVector.zero(S);
            var c71 = ShortVector.zero(S);
            for (int k = k0; k < k0 + BLOCK; k++, ak += ROWS) {
                var w0 = S_CLASS.cast(ShortVector.fromArray(S, panel, k * WIDTH));
                var w1 = S_CLASS.cast(ShortVector.fromArray(S, panel, k * WIDTH + PASS));
                var v = S_CLASS.cast(IntVector.broadcast(I, a[ak]).reinterpretShape(S, 0));
                c00 = c00.lanewise(ADD, w0.lanewise(MUL, v));
                c01 = c01.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 1]).reinterpretShape(S, 0));
                c10 = c10.lanewise(ADD, w0.lanewise(MUL, v));
                c11 = c11.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 2]).reinterpretShape(S, 0));
                c20 = c20.lanewise(ADD, w0.lanewise(MUL, v));
                c21 = c21.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 3]).reinterpretShape(S, 0));
                c30 = c30.lanewise(ADD, w0.lanewise(MUL, v));
                c31 = c31.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 4]).reinterpretShape(S, 0));
                c40 = c40.lanewise(ADD, w0.lanewise(MUL, v));
                c41 = c41.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 5]).reinterpretShape(S, 0));
                c50 = c50.lanewise(ADD, w0.lanewise(MUL, v));
                c51 = c51.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 6]).reinterpretShape(S, 0));
                c60 = c60.lanewise(ADD, w0.lanewise(MUL, v));
                c61 = c61.lanewise(ADD, w1.lanewise(MUL, v));
                v = S_CLASS.cast(IntVector.broadcast(I, a[ak + 7]).reinterpretShape(S, 0));
                c70 = c70.lanewise(ADD, w0.lanewise(MUL, v));
                c71 = c71.lanewise(ADD, w1.lanewise(MUL, v));
            }
            S_CLASS.cast(c00).intoArray(sums, s);
            S_CLASS.cast(c01).intoArray(sums, s + PASS);
            S_CLASS.cast(c10).intoArray(sums, s + WIDTH);
            S_CLASS.cast(c11).intoArray(sums, s + WIDTH + PASS);
            S_CLASS.cast(c20).intoArray(sums, s + 2 * WIDTH);
            S_CLASS.cast(c21).intoArray(sums, s + 2 * WIDTH + PASS);
            S_CLASS.cast(c30).intoArray(sums, s + 3 * WIDTH);
            S_CLASS.cast(c31).intoArray(sums, s + 3 * WIDTH + PASS);
            S_CLASS.cast(c40).intoArray(sums, s + 4 * WIDTH);
            S_CLASS.cast(c41).intoArray(sums, s + 4 * WIDTH + PASS);
            S_CLASS.cast(c50).intoArray(sums, s + 5 * WIDTH);
            S_CLASS.cast(c51).intoArray(sums, s + 5 * WIDTH + PASS);
            S_CLASS.cast(c60).intoArray(sums, s + 6 * WIDTH);
            S_CLASS.cast(c61).intoArray(sums, s + 6 * WIDTH + PASS);
            S_CLASS.cast(c70).intoArray(sums, s + 7 * WIDTH);
            S_CLASS.cast(c71).intoArray(sums, s + 7 * WIDTH + PASS);
        }
    }

    /**
     * A worker's panel: the decoded values, the type's scales and the kernel's sums. The
     * scales' layout is the type's ({@link ShortPanels}); there is room for two floats and two ints per 32 values
     * of each of the panel's rows.
     */
    public static final class Panel {
        /** {@code values[k * WIDTH + lane]}: column k, as {@link InterleavedRows#nibbleStepsToShortPanel} lays it out. */
        public final short[] values = new short[DEPTH * WIDTH];
        /** Where the second float and the second int of each 32 values of a row start in {@link #floats} and {@link #ints}. */
        public static final int SECOND = DEPTH / BLOCK * WIDTH;
        public final float[] floats = new float[2 * SECOND];
        public final int[] ints = new int[2 * SECOND];
        /** {@code sums[(block * ROWS + i) * WIDTH + lane]}: the kernel's sums of 32-value block {@code block} of the depth. */
        public final short[] sums = new short[DEPTH / BLOCK * ROWS * WIDTH];
        /** Where a panel cut short by the matrix's end sends the floats of its missing pass, which nothing reads. */
        public final float[] spare = new float[PASS];

        /** Passes {@code [pass, pass + passes)} of the copy, blocks {@code [firstBlock, firstBlock + blocks)}, into the panel. */
        public void pack(ShortPanels copy, int pass, int passes, int firstBlock, int blocks) {
            // a panel cut short by the matrix's end leaves the missing pass's lanes as they were: their sums are
            // computed (16-bit lanes wrap, nothing traps) and never converted
            for (int i = 0; i < passes; i++) copy.decodeShortPanel(pass + i, firstBlock, blocks, this, i * PASS);
        }
    }
}
