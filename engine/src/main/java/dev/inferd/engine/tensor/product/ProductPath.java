package dev.inferd.engine.tensor.product;

/**
 * The paths a matrix product can take, and the one place that chooses among them
 * ({@link MappedMatrix#multiply} and {@link SameInputProducts} ask here). The rule: a row's product must
 * have the same bits whatever batch it arrives in, so the path follows the row's role (prompt or
 * generated token), which never changes, and never the batch's size; except for matrices whose paths all
 * give a row the same bits ({@link MappedMatrix#rolesShareBits}), where the batch's size alone decides.
 * Why the paths are shaped as they are: docs/engine.md.
 */
public enum ProductPath {
    /**
     * One weight row at a time against one, two or four activation rows: the format's row kernels
     * ({@code rowDot}, {@code dot2}, {@code dot4}), or its decode copy ({@link InterleavedRows}) where it has
     * one. Reads every weight once per few rows: the path of generated tokens.
     */
    ROW_KERNELS,
    /** A register-tiled float product over decoded panels of the weights ({@link TiledProduct}): prompt rows. */
    FLOAT_TILES,
    /**
     * A tiled integer product over the short panels of a Q4_0 or Q4_K copy ({@link IntTiledProduct}), which
     * gives a row the row kernels' bits: batches of {@link IntTiledProduct#MIN_BATCH} rows or more, whatever
     * their roles, on machines with 512-bit vectors.
     */
    INT_TILES;

    /** The path of the prompt rows of a batch of {@code batch} rows through {@code matrix}. */
    public static ProductPath ofPromptRows(MappedMatrix matrix, int batch) {
        return matrix.rolesShareBits() ? bySize(batch) : FLOAT_TILES;
    }

    /** The path of the generated rows of a batch of {@code batch} rows through {@code matrix}. */
    public static ProductPath ofGeneratedRows(MappedMatrix matrix, int batch) {
        return matrix.rolesShareBits() ? bySize(batch) : ROW_KERNELS;
    }

    /** Whether every row of the batch, its first {@code promptRows} prompt rows among them, takes the row kernels. */
    public static boolean allRowKernels(MappedMatrix matrix, int batch, int promptRows) {
        return (promptRows == 0 || ofPromptRows(matrix, batch) == ROW_KERNELS)
                && (promptRows == batch || ofGeneratedRows(matrix, batch) == ROW_KERNELS);
    }

    private static ProductPath bySize(int batch) {
        return batch < IntTiledProduct.MIN_BATCH ? ROW_KERNELS : INT_TILES;
    }
}
