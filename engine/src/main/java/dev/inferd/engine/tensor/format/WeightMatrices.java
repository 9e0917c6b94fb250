package dev.inferd.engine.tensor.format;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.TensorInfo;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.copies.CopyLayout;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.format.bf16.BF16Matrix;
import dev.inferd.engine.tensor.format.f16.F16Matrix;
import dev.inferd.engine.tensor.format.f32.F32Matrix;
import dev.inferd.engine.tensor.format.iq4_nl.IQ4_NLMatrix;
import dev.inferd.engine.tensor.format.iq4_xs.IQ4_XSMatrix;
import dev.inferd.engine.tensor.format.q2_k.Q2_KMatrix;
import dev.inferd.engine.tensor.format.q3_k.Q3_KMatrix;
import dev.inferd.engine.tensor.format.q4_0.Q4_0Interleaved;
import dev.inferd.engine.tensor.format.q4_0.Q4_0Matrix;
import dev.inferd.engine.tensor.format.q4_1.Q4_1Matrix;
import dev.inferd.engine.tensor.format.q4_k.Q4_KInterleaved;
import dev.inferd.engine.tensor.format.q4_k.Q4_KMatrix;
import dev.inferd.engine.tensor.format.q5_0.Q5_0Interleaved;
import dev.inferd.engine.tensor.format.q5_0.Q5_0Matrix;
import dev.inferd.engine.tensor.format.q5_1.Q5_1Matrix;
import dev.inferd.engine.tensor.format.q5_k.Q5_KInterleaved;
import dev.inferd.engine.tensor.format.q5_k.Q5_KMatrix;
import dev.inferd.engine.tensor.format.q6_k.Q6_KInterleaved;
import dev.inferd.engine.tensor.format.q6_k.Q6_KMatrix;
import dev.inferd.engine.tensor.format.q8_0.Q8_0Interleaved;
import dev.inferd.engine.tensor.format.q8_0.Q8_0Matrix;
import dev.inferd.engine.tensor.product.InterleavedRows;

import java.lang.foreign.MemorySegment;

/**
 * A tensor's matrix: the format package for its GGML type, and the decode copy ({@link InterleavedRows}) that
 * Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K matrices with rows in sets of 16 get for generated tokens.
 */
public final class WeightMatrices {
    /** Which tensors get a copy and how long it is, for a cache file of copies. */
    public static final CopyLayout COPIES = new CopyLayout() {
        @Override
        public long copyBytes(TensorInfo tensor) {
            return WeightMatrices.copyBytes(tensor);
        }

        @Override
        public int variant() {
            return InterleavedRows.GROUP;
        }
    };

    private WeightMatrices() {
    }

    /** Tensor {@code info} over {@code data}, its copy (if its type and shape get one) from {@code copies}. */
    public static WeightMatrix of(TensorInfo info, MemorySegment data, CopyStore copies) {
        int cols = Math.toIntExact(info.cols());
        int rows = Math.toIntExact(info.rows());
        try {
            return of(info.type(), rows, cols, data, copies, info.name());
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException("tensor " + info.name() + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tensor " + info.name() + ": " + e.getMessage(), e);
        }
    }

    /** A {@code rows x cols} matrix of {@code type} over {@code data} (exactly its size; heap or mapped), any copy in memory. */
    public static WeightMatrix of(GGMLType type, int rows, int cols, MemorySegment data) {
        return of(type, rows, cols, data, CopyStore.inMemory(), type + " " + rows + "x" + cols);
    }

    /** Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K matrices whose shape allows get an interleaved copy from {@code copies}, filed under {@code tensor}. */
    public static WeightMatrix of(GGMLType type, int rows, int cols, MemorySegment data, CopyStore copies, String tensor) {
        return switch (type) {
            case F32 -> new F32Matrix(rows, cols, data);
            case F16 -> new F16Matrix(rows, cols, data);
            case BF16 -> new BF16Matrix(rows, cols, data);
            case Q8_0 -> new Q8_0Matrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case Q4_0 -> new Q4_0Matrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case Q4_1 -> new Q4_1Matrix(rows, cols, data);
            case Q5_0 -> new Q5_0Matrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case Q5_1 -> new Q5_1Matrix(rows, cols, data);
            case Q2_K -> new Q2_KMatrix(rows, cols, data);
            case Q3_K -> new Q3_KMatrix(rows, cols, data);
            case Q4_K -> new Q4_KMatrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case Q5_K -> new Q5_KMatrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case Q6_K -> new Q6_KMatrix(rows, cols, data, interleaved(type, data, rows, cols, copies, tensor));
            case IQ4_NL -> new IQ4_NLMatrix(rows, cols, data);
            case IQ4_XS -> new IQ4_XSMatrix(rows, cols, data);
            default -> throw new UnsupportedOperationException(
                    "type " + type + " is not supported yet (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K-Q6_K, IQ4_NL and IQ4_XS are)");
        };
    }

    /**
     * Bytes of the copy tensor {@code info} gets at load, or 0 where it is read in place. Once a matrix
     * has its copy, nothing reads its stored weights again: their pages of the mapping can be let go.
     */
    public static long copyBytes(TensorInfo info) {
        if (info.dims().length > 2) return 0;
        return copyBytes(info.type(), Math.toIntExact(info.rows()), Math.toIntExact(info.cols()));
    }

    /** Bytes of the copy a {@code rows x cols} matrix of {@code type} gets, or 0 where the type or shape gets none. */
    public static long copyBytes(GGMLType type, int rows, int cols) {
        int blockBytes = switch (type) {
            case Q8_0 -> Q8_0Interleaved.BLOCK_BYTES;
            case Q4_0 -> Q4_0Interleaved.BLOCK_BYTES;
            case Q5_0 -> Q5_0Interleaved.BLOCK_BYTES;
            case Q4_K -> Q4_KInterleaved.BLOCK_BYTES;
            case Q5_K -> Q5_KInterleaved.BLOCK_BYTES;
            case Q6_K -> Q6_KInterleaved.BLOCK_BYTES;
            default -> 0;
        };
        return blockBytes == 0 ? 0 : InterleavedRows.copyBytes(type, rows, cols, blockBytes);
    }

    /**
     * The copy of the stored matrix {@code stored} (tensor {@code tensor}), in memory from {@code store}
     * and filled unless that memory holds it already; null where the type or shape gets none.
     */
    public static InterleavedRows interleaved(GGMLType type, MemorySegment stored, int rows, int cols, CopyStore store, String tensor) {
        long bytes = copyBytes(type, rows, cols);
        if (bytes == 0) return null;
        CopyStore.Slot slot = store.slot(tensor, bytes);
        InterleavedRows copy = switch (type) {
            case Q8_0 -> new Q8_0Interleaved(rows, cols, slot.memory());
            case Q4_0 -> new Q4_0Interleaved(rows, cols, slot.memory());
            case Q5_0 -> new Q5_0Interleaved(rows, cols, slot.memory());
            case Q4_K -> new Q4_KInterleaved(rows, cols, slot.memory());
            case Q5_K -> new Q5_KInterleaved(rows, cols, slot.memory());
            case Q6_K -> new Q6_KInterleaved(rows, cols, slot.memory());
            default -> throw new IllegalArgumentException(type + " has no interleaved copy");
        };
        if (!slot.filled()) copy.fillFrom(stored, rows);
        return copy;
    }
}
