package dev.inferd.engine.tensor.format.iq4_nl;

import dev.inferd.engine.tensor.format.iq4_xs.IQ4_XSMatrix;
import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;

/**
 * IQ4_NL weights: blocks of 32 values as an fp16 scale {@code d} and 16 bytes of 4-bit indices into a
 * fixed non-uniform table of 16 levels (low nibbles are values 0-15, high nibbles 16-31); value =
 * d * level. The table lookup is scalar; the multiply is the shared vector loop.
 */
public final class IQ4_NLMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 18;

    public IQ4_NLMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.IQ4_NL, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += 32, at += BLOCK_BYTES) {
            IQ4_XSMatrix.levels(data, at + 2, half(at), out, o);
        }
    }
}
