package dev.inferd.engine.model;

/**
 * The logits a forward pass produced: one row of {@link #vocabSize()} floats per batch entry that
 * wanted logits, in the order those entries were added (see {@code Batch.logitsRow}). Owned by the
 * model and overwritten by its next forward pass: copy what you keep.
 */
public final class Logits {
    private final int vocabSize;
    private float[] data = new float[0];
    private int rows;

    Logits(int vocabSize) {
        this.vocabSize = vocabSize;
    }

    /** Makes room for {@code rows} rows; allocates only the first time a larger count is seen. */
    void resize(int rows) {
        long needed = (long) rows * vocabSize;
        if (needed > Integer.MAX_VALUE - 8) throw new IllegalArgumentException(rows + " logits rows do not fit one array");
        if (data.length < needed) data = new float[(int) needed];
        this.rows = rows;
    }

    public int rows() { return rows; }

    public int vocabSize() { return vocabSize; }

    /** The backing array: row {@code r} is {@code [offset(r), offset(r) + vocabSize())}. */
    public float[] data() { return data; }

    public int offset(int row) {
        if (row < 0 || row >= rows) throw new IndexOutOfBoundsException("logits row " + row + " of " + rows);
        return row * vocabSize;
    }

    public float get(int row, int token) {
        if (token < 0 || token >= vocabSize) throw new IndexOutOfBoundsException("token " + token);
        return data[offset(row) + token];
    }

    /** A copy of one row. */
    public float[] row(int row) {
        float[] out = new float[vocabSize];
        System.arraycopy(data, offset(row), out, 0, vocabSize);
        return out;
    }

    /** The highest-scoring token of a row (the lowest id among equals). */
    public int argmax(int row) {
        int off = offset(row);
        int best = 0;
        for (int t = 1; t < vocabSize; t++) if (data[off + t] > data[off + best]) best = t;
        return best;
    }
}
