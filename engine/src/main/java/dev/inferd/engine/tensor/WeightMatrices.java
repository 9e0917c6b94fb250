package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.TensorInfo;

import java.lang.foreign.MemorySegment;

/** Chooses the kernel implementation for a tensor's type. */
final class WeightMatrices {
    private WeightMatrices() {
    }

    static WeightMatrix create(TensorInfo info, MemorySegment data) {
        int cols = Math.toIntExact(info.cols());
        int rows = Math.toIntExact(info.rows());
        return switch (info.type()) {
            case F32 -> new F32Matrix(rows, cols, data);
            default -> throw new UnsupportedOperationException(
                    "tensor " + info.name() + " has type " + info.type() + ", which this engine cannot read yet");
        };
    }
}
