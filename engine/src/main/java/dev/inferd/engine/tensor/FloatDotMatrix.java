package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.MemorySegment;

/**
 * Weight types multiplied with float activations: each subclass widens its weights to floats as it
 * reads them and supplies the dot product of one row with one activation row ({@link #dot}) and with
 * four at once ({@link #dot4}, decoding the weights once for all four).
 *
 * <p>Generated tokens take these two kernels at every batch size; prompt tokens take
 * {@link TiledProduct}, which adds in another order. Were the kernel chosen by batch size instead, a
 * sequence's results would change when a step's batch crossed the threshold, and with them its tokens.
 */
abstract sealed class FloatDotMatrix extends MappedMatrix permits F32Matrix, HalfMatrix, BlockMatrix {
    FloatDotMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
        super(type, rows, cols, data);
    }

    /**
     * {@code dot(row at rowOffset, x[xOffset .. xOffset + cols))}, bit for bit what {@link #dot4} gives
     * for the same activation row (see MappedMatrix).
     */
    abstract float dot(long rowOffset, float[] x, int xOffset);

    /**
     * The same row with the four activation rows starting at {@code xOffset + k * cols}, into
     * {@code out[outIndex + k * rows]}, {@code k < 4}.
     */
    abstract void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex);

    @Override
    final int prepare(Job job) {
        return rowTasks();
    }

    @Override
    final float rowDot(Job job, long rowOffset, int b) {
        return dot(rowOffset, job.x, b * cols);
    }

    @Override
    final void rowDot4(Job job, long rowOffset, int b, int outIndex) {
        dot4(rowOffset, job.x, b * cols, job.out, outIndex);
    }
}
