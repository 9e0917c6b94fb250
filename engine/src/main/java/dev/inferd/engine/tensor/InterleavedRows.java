package dev.inferd.engine.tensor;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A copy of a quantized matrix laid out for generated tokens: rows interleaved in groups of
 * {@value #GROUP}, so that a vector lane follows one row and one call yields {@value #ROWS_PER_PASS}
 * rows' products with no sum across lanes. llama.cpp repacks weights the same way on these machines;
 * in the stored layout every block's scale must be broadcast from a general register, and that
 * per-block step held the row kernels to half of llama.cpp's speed or less (sessions 7 and 8).
 *
 * <p>The copy is built once at load, on the shared worker pool, in native memory; GGUF data is
 * little-endian and the kernels read the copy little-endian whatever the machine. The model file is
 * read through a native view of its mapping ({@code GGUFFile.open}) so that every vector load in the
 * engine meets one segment class: beside a second class, C2 kept a class check and a session check
 * inside the kernels' loops. Reading the copy from a Java array would be faster still (its int index
 * checks hoist where a segment's long ones do not; session 8 measured 1.2-1.3x), but model weights stay
 * out of the Java heap by design.
 *
 * <p>The kernels call nothing but the Vector API, whose methods C2 inlines whatever the size of the
 * caller: past C2's node count for inlining, a call to a helper of our own is left as a call, and the
 * vectors it takes or returns are boxed on the heap (a pair-sum helper cost the Q4_K kernel half its
 * speed, session 8).
 */
abstract sealed class InterleavedRows permits Q4_0Interleaved, Q4_KInterleaved, Q6_KInterleaved {
    /** Rows interleaved in a group. */
    static final int GROUP = 8;
    /** Rows per {@link #dot}: two groups share each activation broadcast. */
    static final int ROWS_PER_PASS = 2 * GROUP;
    /** Bytes of a step: two values of each of a group's rows, which the kernels widen to 16 shorts. */
    static final int STEP_BYTES = 16;

    static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);

    /** The copy: group after group of eight rows, each group's blocks one after another. */
    final MemorySegment data;
    /** Blocks per row (blocks of 32 values, or super-blocks of 256). */
    final int blocks;
    /** Bytes of one group's blocks. */
    final long groupBytes;

    /** Memory for {@code rows} rows of {@code cols / blockValues} blocks, each {@code blockBytes} per group. */
    InterleavedRows(int rows, int cols, int blockValues, int blockBytes) {
        if (!fits(rows) || cols % blockValues != 0) throw new IllegalArgumentException(rows + " x " + cols + " cannot be interleaved");
        this.blocks = cols / blockValues;
        this.groupBytes = (long) blocks * blockBytes;
        this.data = Arena.ofAuto().allocate(rows / GROUP * groupBytes, 64);
    }

    /** Whether a matrix of this many rows can be interleaved (every pass takes whole groups). */
    static boolean fits(int rows) {
        return rows % ROWS_PER_PASS == 0;
    }

    /** Group {@code group}'s eight rows of the stored matrix {@code stored}, copied into the layout. */
    abstract void fill(MemorySegment stored, int group);

    /** Every group of the {@code rows} copied from {@code stored}, on the shared worker pool. */
    final void fillFrom(MemorySegment stored, int rows) {
        int groups = rows / GROUP;
        int tasks = Math.min(groups, 64); // a few per thread, so that uneven threads even out
        WorkerPool.shared().parallelFor(tasks, (task, worker) -> {
            for (int g = (int) ((long) groups * task / tasks), end = (int) ((long) groups * (task + 1) / tasks); g < end; g++) {
                fill(stored, g);
            }
        });
    }

    /**
     * Rows {@code [16 * pass, 16 * pass + 16)} with entry {@code b} of the activations, into
     * {@code out[outIndex .. outIndex + 16)}.
     */
    abstract void dot(int pass, Q8Activations x, int b, float[] out, int outIndex);
}
