package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;

/**
 * What every weight type shares: the bounds checks and splitting a product over the {@link WorkerPool}.
 * Two families differ in what they multiply the weights with:
 * <ul>
 *   <li>{@link FloatDotMatrix}: float activations, the weights widened to floats as they are read;</li>
 *   <li>{@link IntDotMatrix}: activations quantized to 8-bit blocks ({@link Q8Activations}) and integer
 *       products per block, as llama.cpp does for the same types.</li>
 * </ul>
 * Those are the kernels for generated tokens. Each family prepares the activations once on the
 * calling thread ({@link #prepare}); tasks of rows then run on the pool, each row meeting the batch one
 * activation row ({@link #rowDot}) or four ({@link #rowDot4}, decoding the weights once for all four)
 * at a time. Prompt tokens go through {@link TiledProduct} instead, a float GEMM over decoded panels of
 * the weights, whatever the family.
 *
 * <p>The batched kernels ({@code dot2}, {@code dot4}, and {@link TiledProduct}'s tile kernels) must each
 * compile as a unit of its own: jvm.options passes {@code -XX:CompileCommand=dontinline} for them.
 * Inlined into their callers, the unit can outgrow C2's inlining node budget, and the vector values it then leaves in
 * calls are boxed on the heap: prefill measured ten times slower on some starts and not others. The
 * one-row {@code dot} stays inlinable: kept out of line, decoding measured a quarter slower.
 *
 * <p>Which path each row of a product takes, and why: {@link ProductPath}.
 */
public abstract class MappedMatrix implements WeightMatrix {

    /**
     * The machine's widest float vector: 8 lanes (AVX2) or 16 (AVX-512). The block kernels need at
     * least 8 lanes (a 64-bit vector of int8 weights), so narrower machines (NEON) get 256-bit vectors,
     * correct but emulated and slow.
     */
    public static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.length() >= 8
            ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;
    /** F's vector class, to type vectors exactly ({@link VectorClasses}). */
    public static final Class<FloatVector> F_CLASS = VectorClasses.of(F);


    /** Below this many multiply-adds a call runs on the calling thread: handing out work costs more. */
    public static final long PARALLEL_MIN_WORK = 1 << 16;
    /** Rows per task at least, and tasks per thread at most (a few, to even out uneven threads). */
    private static final int ROWS_PER_TASK_MIN = 16;
    private static final int TASKS_PER_THREAD = 4;
    /** Rows that stay in cache while a large batch streams past them four activation rows at a time. */
    private static final int ROW_TILE = 16;

    private static final ThreadLocal<Job> JOBS = ThreadLocal.withInitial(Job::new);

    public final int rows;
    public final int cols;
    public final MemorySegment data;
    public final long rowBytes;

    public MappedMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
        if (rows <= 0 || cols <= 0) throw new IllegalArgumentException("matrix of " + rows + " x " + cols);
        if (cols % type.blockSize() != 0) {
            throw new IllegalArgumentException("row length " + cols + " is not a multiple of the " + type
                    + " block size " + type.blockSize());
        }
        this.rows = rows;
        this.cols = cols;
        this.rowBytes = type.bytesFor(cols);
        if (data.byteSize() != rowBytes * rows) {
            throw new IllegalArgumentException(rows + " x " + cols + " " + type + " takes " + rowBytes * rows
                    + " bytes, the data has " + data.byteSize());
        }
        this.data = data;
    }


    @Override public final int rows() { return rows; }

    /**
     * Decodes {@code count} values (whole blocks) starting at byte {@code at} of the data into
     * {@code out[offset .. offset + count)}: a row, or a run of columns of one for {@link TiledProduct}.
     */
    public abstract void dequantize(long at, int count, float[] out, int offset);

    /**
     * Weight rows {@code [r0, r0 + width)}, columns {@code [k0, k0 + depth)} (whole blocks) into a panel of
     * {@link TiledProduct}, {@code panel[k * stride + i]} for row {@code r0 + i} and column {@code k0 + k},
     * the values {@link #dequantize} gives; false, with the panel untouched, where this matrix has no
     * layout that yields columns directly (the panel is then packed row by row).
     */
    public boolean decodePanel(int r0, int width, int k0, int depth, float[] panel, int stride) {
        return false;
    }

    /** Whether {@link #decodePanel} takes every whole panel of this matrix (rows from a multiple of 16, 16 wide). */
    public boolean decodesPanels() {
        return false;
    }

    @Override
    public final void dequantizeRow(int row, float[] out, int offset) {
        dequantize(row * rowBytes, cols, out, offset);
    }

    @Override public final int cols() { return cols; }

    /**
     * On the calling thread, before any task: readies the activations in {@code job} (a transposed or
     * quantized copy in its scratch buffers) and returns the number of tasks to split the rows into.
     */
    public abstract int prepare(Job job);

    /**
     * The block of {@link Q8Activations} to which the tiled product first rounds the prompt rows, or 0 where it
     * takes them as they are.
     */
    public int promptRounding() {
        return 0;
    }

    /** Task {@code task} of {@code job.tasks}: its rows of every batch entry, into {@code job.out}. */
    public final void compute(Job job, int task) {
        multiplyRows(job, taskFrom(task, job.tasks), taskFrom(task + 1, job.tasks));
    }

    /** Row {@code rowOffset}'s product with batch entry {@code b}, bit for bit one lane of {@link #rowDot4}. */
    public abstract float rowDot(Job job, long rowOffset, int b);

    /** The same row with batch entries {@code b .. b + 3}, into {@code job.out[outIndex + k * rows]}, {@code k < 4}. */
    public abstract void rowDot4(Job job, long rowOffset, int b, int outIndex);

    /**
     * Rows {@code [from, to)} of the batch entries from {@code job.first} on. A type with a copy of its
     * weights laid out for generated tokens ({@link InterleavedRows}) takes them through that instead.
     */
    public void multiplyRows(Job job, int from, int to) {
        int first = job.first;
        int batch = job.batch;
        float[] out = job.out;
        if (batch - first < 4) {
            for (int r = from; r < to; r++) {
                long rowOffset = r * rowBytes;
                for (int b = first; b < batch; b++) out[b * rows + r] = rowDot(job, rowOffset, b);
            }
            return;
        }
        // a tile of rows stays in cache while the batch passes by, four activation rows at a time
        for (int tile = from; tile < to; tile += ROW_TILE) {
            int tileEnd = Math.min(to, tile + ROW_TILE);
            int b = first;
            for (; b + 4 <= batch; b += 4) {
                for (int r = tile; r < tileEnd; r++) rowDot4(job, r * rowBytes, b, b * rows + r);
            }
            for (; b < batch; b++) {
                for (int r = tile; r < tileEnd; r++) out[b * rows + r] = rowDot(job, r * rowBytes, b);
            }
        }
    }

    /** The even split of the rows for products that need no particular tiling. */
    public final int rowTasks() {
        return Math.min(WorkerPool.shared().threads() * TASKS_PER_THREAD, Math.ceilDiv(rows, ROWS_PER_TASK_MIN));
    }

    public final int taskFrom(int task, int tasks) {
        if (task == tasks) return rows;
        int unit = rowUnit();
        return (int) ((long) rows * task / tasks / unit * unit);
    }

    /** What each task's first row is a multiple of: kernels that take several rows at once want whole sets. */
    public int rowUnit() {
        return 1;
    }

    /** Each row through the path {@link ProductPath} chooses for its role; where both roles' paths are one, the batch goes whole. */
    @Override
    public final void multiply(float[] x, int batch, float[] out, int promptRows) {
        checkArguments(x, batch, out, promptRows);
        Job job = JOBS.get();
        try {
            ProductPath promptPath = ProductPath.ofPromptRows(this, batch);
            ProductPath generatedPath = ProductPath.ofGeneratedRows(this, batch);
            int first = promptPath == generatedPath ? 0 : promptRows;
            job.start(this, x, first, batch, out);
            if (first > 0) multiplyFloatTiles(job, first);
            if (first < batch) {
                if (generatedPath == ProductPath.INT_TILES) multiplyIntTiles(job);
                else multiplyByRows(job);
            }
        } finally {
            job.clear();
        }
    }

    /** {@link ProductPath#FLOAT_TILES} for rows {@code [0, rows)} of {@code job}'s batch. */
    private void multiplyFloatTiles(Job job, int rows) {
        TiledProduct tiled = job.tiled;
        tiled.start(this, job.x, rows, job.out, job.quantized, promptRounding());
        run(tiled.packing(), tiled.packingTasks(), rows);
        run(tiled, tiled.tasks(), rows);
    }

    public final void checkArguments(float[] x, int batch, float[] out, int promptRows) {
        if (batch <= 0) throw new IllegalArgumentException("batch " + batch);
        if (promptRows < 0 || promptRows > batch) throw new IllegalArgumentException(promptRows + " prompt rows in a batch of " + batch);
        if ((long) batch * cols > x.length) {
            throw new IllegalArgumentException("x has " + x.length + " floats, a batch of " + batch + " x " + cols + " needs more");
        }
        if ((long) batch * rows > out.length) {
            throw new IllegalArgumentException("out has " + out.length + " floats, a batch of " + batch + " x " + rows + " needs more");
        }
    }

    /**
     * Whether this matrix's products give a row the same bits whatever path it takes, so that a batch's
     * size, not its rows' roles, may choose the path ({@link ProductPath}).
     */
    public boolean rolesShareBits() {
        return false;
    }

    /** {@link ProductPath#INT_TILES} for the whole batch of {@code job}, where {@link #rolesShareBits}. */
    public void multiplyIntTiles(Job job) {
        throw new UnsupportedOperationException(type() + " has no integer tiled product");
    }

    /** The row kernels for rows {@code [job.first, job.batch)}. */
    public final void multiplyByRows(Job job) {
        job.tasks = prepare(job);
        run(job, job.tasks, job.batch - job.first);
    }

    /** Runs {@code tasks} on the pool, or on this thread when the product is too small to share out. */
    public final void run(WorkerPool.Task body, int tasks, int batch) {
        WorkerPool pool = WorkerPool.shared();
        if (tasks <= 1 || pool.threads() == 1 || (long) rows * cols * batch < PARALLEL_MIN_WORK) {
            for (int t = 0; t < tasks; t++) body.run(t, 0);
        } else {
            pool.parallelFor(tasks, body);
        }
    }

    /** One multiply's arguments and scratch buffers, reused per calling thread so that a call allocates nothing. */
    public static final class Job implements WorkerPool.Task {
        /** The activations quantized for {@link IntDotMatrix}. */
        public final Q8Activations quantized = new Q8Activations();
        /** The prompt rows' product. */
        public final TiledProduct tiled = new TiledProduct();
        /** The many-row product of matrices whose roles share bits ({@link #rolesShareBits}). */
        public final IntTiledProduct intTiled = new IntTiledProduct();
        public MappedMatrix matrix;
        public float[] x;
        public float[] out;
        /** The batch entries {@code [first, batch)} go through the row kernels. */
        public int first;
        public int batch;
        public int tasks;

        public void start(MappedMatrix matrix, float[] x, int first, int batch, float[] out) {
            this.matrix = matrix;
            this.x = x;
            this.first = first;
            this.batch = batch;
            this.out = out;
        }

        public void clear() {
            matrix = null;
            x = null;
            out = null;
            tiled.clear();
            intTiled.clear();
        }

        @Override
        public void run(int task, int worker) {
            matrix.compute(this, task);
        }
    }
}
