package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** F32 weights. Plain scalar loop for now; the tensor work replaces it with Vector API kernels. */
final class F32Matrix implements WeightMatrix {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private final int rows;
    private final int cols;
    private final MemorySegment data;

    F32Matrix(int rows, int cols, MemorySegment data) {
        this.rows = rows;
        this.cols = cols;
        this.data = data;
    }

    @Override public int rows() { return rows; }

    @Override public int cols() { return cols; }

    @Override public GGMLType type() { return GGMLType.F32; }

    @Override
    public void multiply(float[] x, int batch, float[] out) {
        for (int b = 0; b < batch; b++) {
            for (int r = 0; r < rows; r++) {
                long base = (long) r * cols * 4;
                float sum = 0;
                for (int c = 0; c < cols; c++) sum += data.get(F32, base + c * 4L) * x[b * cols + c];
                out[b * rows + r] = sum;
            }
        }
    }

    @Override
    public void dequantizeRow(int row, float[] out, int offset) {
        MemorySegment.copy(data, F32, (long) row * cols * 4, out, offset, cols);
    }
}
