package dev.inferd.engine.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * The product of a weight matrix with a large batch of activation rows (prefill) as a tiled fp32
 * matrix product. The activations are transposed once per multiply ({@link #transpose}: column-major,
 * the batch padded to {@value #BATCH_TILE}), so that one column of 16 batch entries is two 8-float
 * vectors; each task dequantizes a tile of {@link #ROWS} weight rows into a per-thread scratch buffer
 * once and runs every batch column past it. The inner kernel keeps a register tile of 4 weight rows by
 * 16 batch entries (8 accumulators, 14 vector registers in all, so nothing spills on AVX2): per column
 * it loads two activation vectors and broadcasts four weights for eight fused multiply-adds, so it runs
 * near the machine's FMA rate whatever the weight type. Columns go {@value #COLUMN_CHUNK} at a time so
 * the slices in use stay in L1 and L2.
 */
final class TiledProduct {
    /** From this batch size on, dequantizing once per tile beats decoding the weights per 4 rows. */
    static final int MIN_BATCH = 16;
    /** Weight rows per task. */
    static final int ROWS = 16;
    /** Batch entries per register tile: two vectors of 8 floats. */
    static final int BATCH_TILE = 16;
    private static final int ROW_GROUP = 4;
    private static final int COLUMN_CHUNK = 256;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;

    /** Per thread: the dequantized weight tile, and the tile's sums (row-major, batch along the row). */
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[][] {new float[0], new float[0]});

    private TiledProduct() {
    }

    /** The batch rounded up to whole register tiles. */
    static int paddedBatch(int batch) {
        return Math.ceilDiv(batch, BATCH_TILE) * BATCH_TILE;
    }

    /** {@code xt[c * paddedBatch + b] = x[b * cols + c]}, zero for the padding entries. */
    static void transpose(float[] x, int batch, int cols, float[] xt) {
        int padded = paddedBatch(batch);
        for (int b0 = 0; b0 < padded; b0 += BATCH_TILE) {
            int n = Math.min(BATCH_TILE, batch - b0);
            for (int c = 0; c < cols; c++) {
                int at = c * padded + b0;
                for (int i = 0; i < n; i++) xt[at + i] = x[(b0 + i) * cols + c];
                for (int i = n; i < BATCH_TILE; i++) xt[at + i] = 0f;
            }
        }
    }

    /** {@code out[b * rows + r] = dot(row r, x row b)} for rows {@code [from, to)}, at most {@link #ROWS}. */
    static void multiply(MappedMatrix m, int from, int to, float[] xt, int batch, float[] out) {
        int cols = m.cols;
        int rows = m.rows;
        int padded = paddedBatch(batch);
        int n = to - from;
        float[][] holder = SCRATCH.get();
        if (holder[0].length < ROWS * cols) holder[0] = new float[ROWS * cols];
        if (holder[1].length < ROWS * padded) holder[1] = new float[ROWS * padded];
        float[] w = holder[0];
        float[] sums = holder[1];
        for (int j = 0; j < n; j++) m.dequantizeRow(from + j, w, j * cols);
        int groups = Math.ceilDiv(n, ROW_GROUP);
        if (n < groups * ROW_GROUP) Arrays.fill(w, n * cols, groups * ROW_GROUP * cols, 0f);
        for (int k0 = 0; k0 < cols; k0 += COLUMN_CHUNK) {
            int k1 = Math.min(cols, k0 + COLUMN_CHUNK);
            boolean first = k0 == 0;
            for (int b = 0; b < padded; b += BATCH_TILE) {
                for (int g = 0; g < groups; g++) {
                    int r = g * ROW_GROUP;
                    kernel(w, r * cols, cols, xt, padded, b, k0, k1, sums, r * padded + b, padded, first);
                }
            }
        }
        for (int r = 0; r < n; r++) {
            for (int b = 0; b < batch; b++) out[b * rows + from + r] = sums[r * padded + b];
        }
    }

    /** Four weight rows from {@code wOffset} by 16 batch entries from {@code b}, columns {@code [k0, k1)}. */
    private static void kernel(float[] w, int wOffset, int cols, float[] xt, int padded, int b, int k0, int k1,
                               float[] sums, int s0, int stride, boolean first) {
        var a00 = FloatVector.zero(F);
        var a01 = FloatVector.zero(F);
        var a10 = FloatVector.zero(F);
        var a11 = FloatVector.zero(F);
        var a20 = FloatVector.zero(F);
        var a21 = FloatVector.zero(F);
        var a30 = FloatVector.zero(F);
        var a31 = FloatVector.zero(F);
        int w0 = wOffset, w1 = w0 + cols, w2 = w1 + cols, w3 = w2 + cols;
        int at = k0 * padded + b;
        int c = k0;
        // two columns per pass: the loop's own instructions (index, bounds checks) weigh half as much
        for (; c + 2 <= k1; c += 2, at += 2 * padded) {
            var x0 = FloatVector.fromArray(F, xt, at);
            var x1 = FloatVector.fromArray(F, xt, at + 8);
            var v = FloatVector.broadcast(F, w[w0 + c]);
            a00 = x0.fma(v, a00);
            a01 = x1.fma(v, a01);
            v = FloatVector.broadcast(F, w[w1 + c]);
            a10 = x0.fma(v, a10);
            a11 = x1.fma(v, a11);
            v = FloatVector.broadcast(F, w[w2 + c]);
            a20 = x0.fma(v, a20);
            a21 = x1.fma(v, a21);
            v = FloatVector.broadcast(F, w[w3 + c]);
            a30 = x0.fma(v, a30);
            a31 = x1.fma(v, a31);
            x0 = FloatVector.fromArray(F, xt, at + padded);
            x1 = FloatVector.fromArray(F, xt, at + padded + 8);
            v = FloatVector.broadcast(F, w[w0 + c + 1]);
            a00 = x0.fma(v, a00);
            a01 = x1.fma(v, a01);
            v = FloatVector.broadcast(F, w[w1 + c + 1]);
            a10 = x0.fma(v, a10);
            a11 = x1.fma(v, a11);
            v = FloatVector.broadcast(F, w[w2 + c + 1]);
            a20 = x0.fma(v, a20);
            a21 = x1.fma(v, a21);
            v = FloatVector.broadcast(F, w[w3 + c + 1]);
            a30 = x0.fma(v, a30);
            a31 = x1.fma(v, a31);
        }
        for (; c < k1; c++, at += padded) {
            var x0 = FloatVector.fromArray(F, xt, at);
            var x1 = FloatVector.fromArray(F, xt, at + 8);
            var v = FloatVector.broadcast(F, w[w0 + c]);
            a00 = x0.fma(v, a00);
            a01 = x1.fma(v, a01);
            v = FloatVector.broadcast(F, w[w1 + c]);
            a10 = x0.fma(v, a10);
            a11 = x1.fma(v, a11);
            v = FloatVector.broadcast(F, w[w2 + c]);
            a20 = x0.fma(v, a20);
            a21 = x1.fma(v, a21);
            v = FloatVector.broadcast(F, w[w3 + c]);
            a30 = x0.fma(v, a30);
            a31 = x1.fma(v, a31);
        }
        int s1 = s0 + stride, s2 = s1 + stride, s3 = s2 + stride;
        if (!first) {
            a00 = a00.add(FloatVector.fromArray(F, sums, s0));
            a01 = a01.add(FloatVector.fromArray(F, sums, s0 + 8));
            a10 = a10.add(FloatVector.fromArray(F, sums, s1));
            a11 = a11.add(FloatVector.fromArray(F, sums, s1 + 8));
            a20 = a20.add(FloatVector.fromArray(F, sums, s2));
            a21 = a21.add(FloatVector.fromArray(F, sums, s2 + 8));
            a30 = a30.add(FloatVector.fromArray(F, sums, s3));
            a31 = a31.add(FloatVector.fromArray(F, sums, s3 + 8));
        }
        a00.intoArray(sums, s0);
        a01.intoArray(sums, s0 + 8);
        a10.intoArray(sums, s1);
        a11.intoArray(sums, s1 + 8);
        a20.intoArray(sums, s2);
        a21.intoArray(sums, s2 + 8);
        a30.intoArray(sums, s3);
        a31.intoArray(sums, s3 + 8);
    }
}
