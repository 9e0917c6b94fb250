package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

/**
 * A weight matrix of {@code rows x cols} in its file's GGML type: a view over the mapped file. A 1-D
 * tensor is one row. Made by {@code tensor.format.WeightMatrices}, one implementation per GGML format
 * ({@code tensor.format.<type>}); Q8_0, Q4_0, Q4_K, Q5_K and Q6_K matrices with rows in sets of 16 also get
 * a copy laid out for generated tokens, which then serves every read.
 */
public interface WeightMatrix {

    int rows();

    int cols();

    GGMLType type();

    /**
     * {@code out[b * rows + r] = dot(row r, x[b * cols .. (b+1) * cols))} for {@code b < batch}, spread
     * over the worker pool. Allocates nothing in steady state.
     *
     * <p>The first {@code promptRows} entries are prompt tokens, the others generated tokens. A row gets
     * the same bits whatever else is in the batch, so a sequence computes the same numbers alone or
     * batched with others; which path each row takes is decided by {@code tensor.product.ProductPath}.
     */
    void multiply(float[] x, int batch, float[] out, int promptRows);

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
