package dev.inferd.engine.tensor.format.iq4_xs;

import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * IQ4_XS weights: super-blocks of 256 values as an fp16 scale {@code d}, eight 6-bit sub-block scales
 * (high 2 bits in a 16-bit word, low 4 bits in four bytes of nibbles) and 128 bytes of 4-bit indices
 * into IQ4_NL's 16 levels, each 32-value sub-block laid out like an IQ4_NL block; value =
 * d * (scale - 32) * level.
 */
public final class IQ4_XSMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 136;

    public IQ4_XSMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.IQ4_XS, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float d = half(at);
            for (int ib = 0; ib < 8; ib++) {
                levels(data, at + 8 + 16 * ib, d * IQ4_XSReference.scale(data, at, ib), out, o + 32 * ib);
            }
        }
    }

    /** 32 values {@code scale * level} from the 16 bytes of nibble indices at {@code qs}. */
    public static void levels(MemorySegment data, long qs, float scale, float[] out, int o) {
        byte[] levels = IQ4_XSReference.LEVELS;
        for (int j = 0; j < 16; j++) {
            int q = data.get(ValueLayout.JAVA_BYTE, qs + j);
            out[o + j] = scale * levels[q & 0xF];
            out[o + j + 16] = scale * levels[(q >>> 4) & 0xF];
        }
    }
}
