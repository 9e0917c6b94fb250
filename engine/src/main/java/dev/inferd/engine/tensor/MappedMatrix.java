package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;

/**
 * What every weight type shares: the bounds checks, splitting rows over the {@link WorkerPool}, and
 * the loop order for batches. A subclass supplies the dot product of one row with one activation
 * row ({@link #dot}) and with four at once ({@link #dot4}, decoding the weights once for all four).
 *
 * <p>Three paths by batch size: under 4 (decoding), {@link #dot} per entry; from 4, a tile of
 * rows in cache meets four activation rows at a time through {@link #dot4}; from
 * {@link TiledProduct#MIN_BATCH} (prefill), {@link TiledProduct} dequantizes tiles of rows once
 * ({@link #dequantizeRow}) and runs a register-tiled fp32 product, so any type gets it.
 */
abstract sealed class MappedMatrix implements WeightMatrix
        permits F32Matrix, HalfMatrix, Q8_0Matrix, Q4_0Matrix, BlockMatrix {

    /**
     * The machine's widest float vector: 8 lanes (AVX2) or 16 (AVX-512). The block kernels need at
     * least 8 lanes (a 64-bit vector of int8 weights), so narrower machines (NEON) get 256-bit vectors,
     * correct but emulated and slow.
     */
    static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.length() >= 8
            ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;

    /** Rotations by half, a quarter, ... of the lanes: {@link #sum}'s folding order. */
    private static final VectorShuffle<Float>[] FOLDS = folds();

    /** Below this many multiply-adds a call runs on the calling thread: handing out work costs more. */
    private static final long PARALLEL_MIN_WORK = 1 << 16;
    /** Rows per task at least, and tasks per thread at most (a few, to even out uneven threads). */
    private static final int ROWS_PER_TASK_MIN = 16;
    private static final int TASKS_PER_THREAD = 4;
    /** Rows that stay in cache while a large batch streams past them four activation rows at a time. */
    private static final int ROW_TILE = 16;

    private static final ThreadLocal<MultiplyJob> JOBS = ThreadLocal.withInitial(MultiplyJob::new);

    final int rows;
    final int cols;
    final MemorySegment data;
    final long rowBytes;

    MappedMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
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

    /**
     * The sum of the lanes in a fixed order. {@code reduceLanes(ADD)} leaves its order to the
     * implementation, and the interpreter and the JIT-compiled code do differ, so the same row would
     * give different bits before and after warm-up; lane-wise adds of rotations are exact IEEE
     * operations in both.
     */
    static float sum(FloatVector v) {
        for (VectorShuffle<Float> fold : FOLDS) v = v.add(v.rearrange(fold));
        return v.lane(0);
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] folds() {
        int lanes = F.length();
        VectorShuffle<Float>[] folds = new VectorShuffle[Integer.numberOfTrailingZeros(lanes)];
        for (int i = 0, half = lanes / 2; half >= 1; i++, half /= 2) {
            int shift = half;
            folds[i] = VectorShuffle.fromOp(F, lane -> (lane + shift) % lanes);
        }
        return folds;
    }

    @Override public final int rows() { return rows; }

    @Override public final int cols() { return cols; }

    /**
     * {@code dot(row at rowOffset, x[xOffset .. xOffset + cols))}, bit for bit what {@link #dot4} gives
     * for the same activation row: continuous batching puts a sequence's row beside any others, and
     * its result must not depend on them (a fixed seed gives the same tokens alone or batched).
     */
    abstract float dot(long rowOffset, float[] x, int xOffset);

    /**
     * The same row with the four activation rows starting at {@code xOffset + k * cols}, into
     * {@code out[outIndex + k * rows]}, {@code k < 4}.
     */
    abstract void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex);

    @Override
    public final void multiply(float[] x, int batch, float[] out) {
        if (batch <= 0) throw new IllegalArgumentException("batch " + batch);
        if ((long) batch * cols > x.length) {
            throw new IllegalArgumentException("x has " + x.length + " floats, a batch of " + batch + " x " + cols + " needs more");
        }
        if ((long) batch * rows > out.length) {
            throw new IllegalArgumentException("out has " + out.length + " floats, a batch of " + batch + " x " + rows + " needs more");
        }
        MultiplyJob job = JOBS.get();
        boolean tiled = batch >= TiledProduct.MIN_BATCH;
        if (tiled) {
            int need = TiledProduct.paddedBatch(batch) * cols;
            if (job.transposed.length < need) job.transposed = new float[need];
            TiledProduct.transpose(x, batch, cols, job.transposed);
        }
        WorkerPool pool = WorkerPool.shared();
        int tasks = tiled ? Math.ceilDiv(rows, TiledProduct.ROWS)
                : Math.min(pool.threads() * TASKS_PER_THREAD, Math.ceilDiv(rows, ROWS_PER_TASK_MIN));
        if (tasks <= 1 || pool.threads() == 1 || (long) rows * cols * batch < PARALLEL_MIN_WORK) {
            job.start(this, x, batch, out, tasks, tiled);
            try {
                for (int t = 0; t < tasks; t++) job.run(t, 0);
            } finally {
                job.clear();
            }
            return;
        }
        job.start(this, x, batch, out, tasks, tiled);
        try {
            pool.parallelFor(tasks, job);
        } finally {
            job.clear();
        }
    }

    /** Rows {@code [from, to)} of every batch entry. */
    final void multiplyRows(int from, int to, float[] x, int batch, float[] out) {
        if (batch < 4) {
            for (int r = from; r < to; r++) {
                long rowOffset = r * rowBytes;
                for (int b = 0; b < batch; b++) out[b * rows + r] = dot(rowOffset, x, b * cols);
            }
            return;
        }
        // a tile of rows stays in cache while the batch passes by, four activation rows at a time
        for (int tile = from; tile < to; tile += ROW_TILE) {
            int tileEnd = Math.min(to, tile + ROW_TILE);
            int b = 0;
            for (; b + 4 <= batch; b += 4) {
                for (int r = tile; r < tileEnd; r++) dot4(r * rowBytes, x, b * cols, out, b * rows + r);
            }
            for (; b < batch; b++) {
                for (int r = tile; r < tileEnd; r++) out[b * rows + r] = dot(r * rowBytes, x, b * cols);
            }
        }
    }

    /** One multiply's arguments, reused per calling thread so that a call allocates nothing. */
    private static final class MultiplyJob implements WorkerPool.Task {
        float[] transposed = new float[0];
        private MappedMatrix matrix;
        private float[] x;
        private float[] out;
        private int batch;
        private int tasks;
        private boolean tiled;

        void start(MappedMatrix matrix, float[] x, int batch, float[] out, int tasks, boolean tiled) {
            this.matrix = matrix;
            this.x = x;
            this.batch = batch;
            this.out = out;
            this.tasks = tasks;
            this.tiled = tiled;
        }

        void clear() {
            matrix = null;
            x = null;
            out = null;
        }

        @Override
        public void run(int task, int worker) {
            int rows = matrix.rows;
            if (tiled) {
                int from = task * TiledProduct.ROWS;
                TiledProduct.multiply(matrix, from, Math.min(rows, from + TiledProduct.ROWS), transposed, batch, out);
                return;
            }
            int from = (int) ((long) rows * task / tasks);
            int to = (int) ((long) rows * (task + 1) / tasks);
            matrix.multiplyRows(from, to, x, batch, out);
        }
    }
}
