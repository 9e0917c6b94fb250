package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.TensorInfo;

import java.lang.foreign.MemorySegment;

/** Chooses the kernel implementation for a tensor's type. */
final class WeightMatrices {
    private WeightMatrices() {
    }

    static WeightMatrix create(TensorInfo info, MemorySegment data, CopyStore copies) {
        int cols = Math.toIntExact(info.cols());
        int rows = Math.toIntExact(info.rows());
        try {
            return create(info.type(), rows, cols, data, copies, info.name());
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException("tensor " + info.name() + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tensor " + info.name() + ": " + e.getMessage(), e);
        }
    }

    /** Q8_0, Q4_0, Q4_K, Q5_K and Q6_K matrices whose shape allows get an interleaved copy from {@code copies}, filed under {@code tensor}. */
    static WeightMatrix create(GGMLType type, int rows, int cols, MemorySegment data, CopyStore copies, String tensor) {
        return switch (type) {
            case F32 -> new F32Matrix(rows, cols, data);
            case F16 -> new F16Matrix(rows, cols, data);
            case BF16 -> new BF16Matrix(rows, cols, data);
            case Q8_0 -> new Q8_0Matrix(rows, cols, data, InterleavedRows.of(type, data, rows, cols, copies, tensor));
            case Q4_0 -> new Q4_0Matrix(rows, cols, data, InterleavedRows.of(type, data, rows, cols, copies, tensor));
            case Q4_1 -> new Q4_1Matrix(rows, cols, data);
            case Q5_0 -> new Q5_0Matrix(rows, cols, data);
            case Q5_1 -> new Q5_1Matrix(rows, cols, data);
            case Q2_K -> new Q2_KMatrix(rows, cols, data);
            case Q3_K -> new Q3_KMatrix(rows, cols, data);
            case Q4_K -> new Q4_KMatrix(rows, cols, data, InterleavedRows.of(type, data, rows, cols, copies, tensor));
            case Q5_K -> new Q5_KMatrix(rows, cols, data, InterleavedRows.of(type, data, rows, cols, copies, tensor));
            case Q6_K -> new Q6_KMatrix(rows, cols, data, InterleavedRows.of(type, data, rows, cols, copies, tensor));
            case IQ4_NL -> new IQ4_NLMatrix(rows, cols, data);
            case IQ4_XS -> new IQ4_XSMatrix(rows, cols, data);
            default -> throw new UnsupportedOperationException(
                    "type " + type + " is not supported yet (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K-Q6_K, IQ4_NL and IQ4_XS are)");
        };
    }
}
