package dev.inferd.bench;

import dev.inferd.engine.tensor.parallel.WorkerPool;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The machine's read bandwidth as the engine's threads see it: a streaming sum over an off-heap
 * buffer much larger than the caches, split across the {@link WorkerPool}'s threads (the same
 * threads that run the kernels). Decode reads every weight once per token, so this bounds it.
 */
public final class MemoryBandwidth {
    /** 1 GiB: far beyond any last-level cache. */
    public static final long DEFAULT_BUFFER_BYTES = 1L << 30;
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    private static final int PASSES = 5;
    private static volatile long sink;

    private MemoryBandwidth() {
    }

    /**
     * Bytes read per second: the best of several passes over a buffer of {@code bufferBytes} (the
     * least disturbed on a shared machine), after one pass that faults the pages in.
     */
    public static double measure(WorkerPool pool, long bufferBytes) {
        int tasks = pool.threads();
        long unit = (long) SPECIES.vectorByteSize() * 4 * tasks;
        long size = Math.max(unit, bufferBytes / unit * unit);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(size, 4096);
            buffer.fill((byte) 1);
            long[] sums = new long[tasks];
            long slice = size / tasks;
            WorkerPool.Task sum = (task, worker) -> sums[task] = sum(buffer, task * slice, slice);
            pool.parallelFor(tasks, sum);
            double best = Double.MAX_VALUE;
            for (int p = 0; p < PASSES; p++) {
                long start = System.nanoTime();
                pool.parallelFor(tasks, sum);
                best = Math.min(best, (System.nanoTime() - start) / 1e9);
            }
            long total = 0;
            for (long s : sums) total += s;
            sink = total; // keeps the sums from being optimized away
            return size / best;
        }
    }

    private static long sum(MemorySegment buffer, long from, long length) {
        int step = SPECIES.vectorByteSize();
        var a = LongVector.zero(SPECIES);
        var b = LongVector.zero(SPECIES);
        var c = LongVector.zero(SPECIES);
        var d = LongVector.zero(SPECIES);
        ByteOrder order = ByteOrder.nativeOrder();
        for (long o = from, end = from + length; o < end; o += 4L * step) {
            a = a.add(LongVector.fromMemorySegment(SPECIES, buffer, o, order));
            b = b.add(LongVector.fromMemorySegment(SPECIES, buffer, o + step, order));
            c = c.add(LongVector.fromMemorySegment(SPECIES, buffer, o + 2L * step, order));
            d = d.add(LongVector.fromMemorySegment(SPECIES, buffer, o + 3L * step, order));
        }
        return a.add(b).add(c).add(d).reduceLanes(VectorOperators.ADD);
    }
}
