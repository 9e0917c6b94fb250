package dev.inferd.engine.tensor.product;

/**
 * An interleaved copy whose values, taken as {@code q - 8}, fit the 16-bit lanes of {@link IntTiledProduct}
 * (4-bit values: Q4_0 and Q4_K), and that converts that product's integer sums to floats by the float
 * operations of its own row kernel, in the same order, so that a row gets the row kernel's bits either way.
 */
public interface ShortPanels {

    /** Columns per block of the copy, the unit of {@code firstBlock} and {@code blockCount} below: 32 (Q4_0) or 256 (Q4_K). */
    int panelBlock();

    /**
     * Pass {@code pass}'s 32 rows, blocks {@code [firstBlock, firstBlock + blockCount)}, into lanes
     * {@code [lane, lane + 32)} of the panel's values (column k at {@code values[k * WIDTH + lane ..)}, as
     * {@link InterleavedRows#nibbleStepsToShortPanel} lays a column out) and of its scales, in the type's own
     * layout of {@link IntTiledProduct.Panel#floats} and {@link IntTiledProduct.Panel#ints}.
     */
    void decodeShortPanel(int pass, int firstBlock, int blockCount, IntTiledProduct.Panel panel, int lane);

    /**
     * The kernel's sums in the panel ({@link IntTiledProduct.Panel#sums}) for its first {@code count} activation
     * rows, which are entries {@code b ..} of {@code x}, and the panel's first {@code width} weight rows, over
     * blocks {@code [firstBlock, firstBlock + blockCount)} of the row: scaled and added to
     * {@code c[cOffset + i * cStride + r]}, from zero when {@code first}.
     */
    void sumsToFloats(IntTiledProduct.Panel panel, int firstBlock, int blockCount, Q8Activations x, int b, int count,
                      float[] c, int cOffset, int cStride, int width, boolean first);
}
