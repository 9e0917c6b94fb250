package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.TensorInfo;

import java.lang.foreign.MemorySegment;

/**
 * A weight matrix of {@code rows x cols} in its file's GGML type: a view over the mapped file. A 1-D
 * tensor is one row. Q8_0, Q4_0, Q4_K, Q5_K and Q6_K matrices with rows in sets of 16 also get a copy laid out for
 * generated tokens, which then serves every read ({@link #copyBytes}).
 */
public interface WeightMatrix {

    /** Tensor {@code info} over {@code data}, its copy (if its type and shape get one) from {@code copies}. */
    static WeightMatrix of(TensorInfo info, MemorySegment data, CopyStore copies) {
        return WeightMatrices.create(info, data, copies);
    }

    /** A {@code rows x cols} matrix of {@code type} over {@code data} (exactly its size; heap or mapped), any copy in memory. */
    static WeightMatrix of(GGMLType type, int rows, int cols, MemorySegment data) {
        return WeightMatrices.create(type, rows, cols, data, CopyStore.inMemory(), type + " " + rows + "x" + cols);
    }

    /**
     * Bytes of the copy tensor {@code info} gets at load, or 0 where it is read in place. Once a matrix
     * has its copy, nothing reads its stored weights again: their pages of the mapping can be let go.
     */
    static long copyBytes(TensorInfo info) {
        if (info.dims().length > 2) return 0;
        return InterleavedRows.copyBytes(info.type(), Math.toIntExact(info.rows()), Math.toIntExact(info.cols()));
    }

    int rows();

    int cols();

    GGMLType type();

    /**
     * {@code out[b * rows + r] = dot(row r, x[b * cols .. (b+1) * cols))} for {@code b < batch}, spread
     * over the worker pool. Allocates nothing in steady state.
     *
     * <p>The first {@code promptRows} entries are prompt tokens: they go through a register-tiled
     * product over float panels of the weights, fast for many rows at once. The others, generated
     * tokens, go through per-row kernels that read the weights as stored, fast for a few rows. Each
     * path gives a row the same bits whatever else is in the batch, and a token's role never changes,
     * so a sequence computes the same numbers alone or batched with others. (A Q4_0 or Q4_K matrix with
     * an interleaved copy on AVX-512 gives every row the row kernels' bits on both paths, and picks the path
     * by the batch's size: an integer GEMM for many rows, the row kernels for a few.)
     */
    void multiply(float[] x, int batch, float[] out, int promptRows);

    /**
     * {@code matrices[i].multiply(x, batch, outs[i], promptRows)} for every i, the same bits, with the matrices'
     * work handed out to the worker pool together where all of them take their row kernels ({@link SameInputProducts}).
     */
    static void multiplyEach(WeightMatrix[] matrices, float[] x, int batch, float[][] outs, int promptRows) {
        SameInputProducts.multiply(matrices, x, batch, outs, promptRows);
    }

    /** {@link #multiply(float[], int, float[], int)} with every entry a generated token. */
    default void multiply(float[] x, int batch, float[] out) {
        multiply(x, batch, out, 0);
    }

    /** Row {@code row} as floats into {@code out[offset .. offset + cols)} (embedding lookup, small vectors). */
    void dequantizeRow(int row, float[] out, int offset);

    /** The whole tensor as floats (only for small tensors: norms, biases). */
    default float[] toFloatArray() {
        float[] all = new float[Math.multiplyExact(rows(), cols())];
        for (int r = 0; r < rows(); r++) dequantizeRow(r, all, r * cols());
        return all;
    }
}
