package dev.inferd.engine.tensor.product;

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
public abstract class FloatDotMatrix extends MappedMatrix {
    public FloatDotMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
        super(type, rows, cols, data);
    }

    /**
     * {@code dot(row at rowOffset, x[xOffset .. xOffset + cols))}, bit for bit what {@link #dot4} gives
     * for the same activation row (see MappedMatrix).
     */
    public abstract float dot(long rowOffset, float[] x, int xOffset);

    /**
     * The same row with the four activation rows starting at {@code xOffset + k * cols}, into
     * {@code out[outIndex + k * rows]}, {@code k < 4}.
     */
    public abstract void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex);

    @Override
    public final int prepare(Job job) {
        return rowTasks();
    }

    @Override
    public final float rowDot(Job job, long rowOffset, int b) {
        return dot(rowOffset, job.x, b * cols);
    }

    @Override
    public final void rowDot4(Job job, long rowOffset, int b, int outIndex) {
        dot4(rowOffset, job.x, b * cols, job.out, outIndex);
    }
}
