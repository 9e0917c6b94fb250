package dev.inferd.engine.batch;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.Batch;

import dev.inferd.engine.model.Model;
import dev.inferd.engine.tensor.WeightMatrix;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Throwaway sequences run through the model before the first request, so that the first request
 * finds the kernels compiled: until C2 has compiled them, the Vector API runs as Java code, and a
 * server's first 64-token request on a 1B model took 10.6 s against 5.4 s for the next ones. llama.cpp
 * runs a warm-up decode at start for its own reasons (page-in, caches); here it is the JIT's.
 *
 * <p>The product kernels run first, alone ({@link #KERNEL_ROUNDS_AT_LEAST}), then the sequences. It all
 * runs on the scheduler thread, the sequences with a cache of their own, and stops between kernel rounds
 * and forward passes as soon as a request is waiting, so a request that comes early waits for one pass
 * at most. Outputs do not depend on it: a pass gives the same bits interpreted and compiled
 * ({@code InterpretedAndCompiledTest}).
 */
public final class WarmUp {
    /**
     * Rounds of the product kernels alone before any forward pass, at least and at most: each round
     * multiplies the smallest matrix of every weight type by one activation row and by two (the one-row
     * and the two-row kernels), and they run until a round allocates less than
     * {@link #COMPILED_ROUND_BYTES} once the least are done. C2 compiles a kernel from the profiles of the
     * Vector API's shared methods as they stand at that moment; compiled in the middle of forward passes,
     * whose norms, attention and activations use other vector shapes, the kernels run slower (figures in
     * docs/performance.md). The least is enough calls for the kernels' ordinary compilation, not only their
     * loops' (on-stack replacement), even on a matrix of a single pass of rows.
     */
    static final int KERNEL_ROUNDS_AT_LEAST = 1_000;
    static final int KERNEL_ROUNDS = 4_000;
    /** A round of compiled kernels allocates nothing; run as Java code, a round allocates megabytes. */
    static final long COMPILED_ROUND_BYTES = 1 << 16;
    /**
     * Passes of generated tokens before the prompt, at most and at least: they run until one allocates
     * less than {@link #COMPILED_PASS_BYTES} (the kernels for generated tokens compiled by C2) or the most.
     * They come first because C2 compiles a kernel from the Vector API's shared profiles as they are at
     * that moment: on AVX-512, kernels compiled after prompt products often run boxed, allocating
     * gigabytes over a short request ({@code InterleavedKernelsAllocateNothingTest} catches it); compiled
     * first, they stay allocation-free after prompt products.
     */
    static final int GENERATED = 48;
    static final int GENERATED_AT_LEAST = 8;
    /** Run as Java code or boxed, a pass of the kernels allocates hundreds of megabytes on a 1B model. */
    static final long COMPILED_PASS_BYTES = 1 << 20;
    /**
     * Prompt tokens of the second sequence. 38 are three tiles of twelve (six tiles of six with AVX2) and a tail
     * of two, so that both kernels the float prompt product takes on the machine compile ({@code TiledProduct}):
     * with 16 (a tail of four, the six-row kernel), a first request whose prompt ended in a tail of one or two
     * rows ran the two-row kernel as Java code, 0.7 GB of allocations on the 1B model. And they are a batch
     * of at least 32 rows, so that Q4_0 and Q4_K matrices compile their integer product for many rows too
     * ({@code IntTiledProduct}).
     */
    static final int PROMPT = 38;
    /** Tokens the prompt's sequence then generates, alone: the one-row path after a prompt. */
    static final int AFTER_PROMPT = 8;
    /**
     * Sequences that decode beside the first, so that the kernels for a batch of generated tokens compile
     * too (two activation rows at a time, and the one left over): left for the first concurrent requests,
     * the two-row kernel ran as Java code for some 10 s of a load test.
     */
    static final int COMPANIONS = 2;
    /**
     * Then one stream's generated tokens, until the code around the products (norms, attention, positions, the
     * activations) has run often enough for C2 and a pass allocates less than {@link #COMPILED_ROUND_BYTES}: layer
     * passes (passes times layers) at least, as many passes at most, and a time at most. Until C2 compiles it, that
     * code runs its vectors as Java objects, which on a small model is most of a token: stories-15m's first tokens
     * after the other passes decoded at a quarter of its later speed or less, and its passes allocated next to
     * nothing after 2,400 layer passes (smollm2-135m's after 4,500).
     */
    static final int ONE_STREAM_LAYER_PASSES = 5_000;
    static final int ONE_STREAM_MOST = 2_000;
    static final long ONE_STREAM_NANOS = 1_500_000_000L;
    /**
     * Or, once this time has passed, until passes allocate no less for {@link #ONE_STREAM_FLAT_PASSES} passes: on a 1B
     * model, whose passes allocate as little from the first (its code compiled over the longer passes before), the
     * phase then adds half a second to a start rather than its most.
     */
    static final long ONE_STREAM_SETTLED_NANOS = 500_000_000L;
    static final int ONE_STREAM_FLAT_PASSES = 16;

    private WarmUp() {
    }

    /**
     * What a warm-up ran: the kernels' rounds, then the forward passes, and the milliseconds each part took (the
     * log shows them, so that a slow start says which part was slow).
     */
    public record Report(int kernelRounds, long kernelMillis, int passes, long passMillis) {
        /** A warm-up that did not run (a request was waiting, or it failed at once). */
        public static final Report NONE = new Report(0, 0, 0, 0);

        public long millis() {
            return kernelMillis + passMillis;
        }

        /** This warm-up's and {@code other}'s together (a draft model's warm-up follows its target's). */
        public Report plus(Report other) {
            return new Report(kernelRounds + other.kernelRounds, kernelMillis + other.kernelMillis, passes + other.passes,
                    passMillis + other.passMillis);
        }
    }

    /**
     * Runs the product kernels alone ({@link #kernels}), then the sequences, checking {@code stop} before
     * every round and pass.
     */
    public static Report run(Model model, BooleanSupplier stop) {
        long started = System.nanoTime();
        int rounds = kernels(model, stop);
        long kernelsDone = System.nanoTime();
        int passes = stop.getAsBoolean() ? 0 : sequences(model, stop);
        return new Report(rounds, (kernelsDone - started) / 1_000_000, passes, (System.nanoTime() - kernelsDone) / 1_000_000);
    }

    /** The sequences alone, checking {@code stop} before every pass; returns the passes run. */
    static int sequences(Model model, BooleanSupplier stop) {
        int companions = Math.min(COMPANIONS, model.maxBatch() - 1);
        int promptLength = Math.min(PROMPT, model.maxBatch());
        int promptSequence = 1 + companions;
        var cache = model.newKVCache(2 + companions, Math.max(GENERATED, promptLength + AFTER_PROMPT));
        var next = new Batch(1 + companions);
        int passes = 0;
        int token = 1;
        for (int i = 0; i < GENERATED && !stop.getAsBoolean(); i++) {
            next.clear();
            for (int s = 0; s <= companions; s++) next.add(s, i, token, true);
            long before = allocatedBytes();
            token = model.forward(next, cache).argmax(0);
            passes++;
            if (i + 1 >= GENERATED_AT_LEAST && allocatedBytes() - before < COMPILED_PASS_BYTES) break;
        }
        if (stop.getAsBoolean()) return passes;
        int vocab = model.config().vocabSize();
        int[] prompt = new int[promptLength];
        for (int i = 0; i < promptLength; i++) prompt[i] = (1 + 7 * i) % vocab;
        token = model.forward(Batch.ofPrompt(promptSequence, 0, prompt), cache).argmax(0);
        passes++;
        for (int i = 0; i < AFTER_PROMPT && !stop.getAsBoolean(); i++, passes++) {
            next.clear();
            next.add(promptSequence, promptLength + i, token, true);
            token = model.forward(next, cache).argmax(0);
        }
        return passes + oneStream(model, cache, stop);
    }

    /** {@link #ONE_STREAM_LAYER_PASSES}: one sequence of the cache, cleared whenever it reaches the cache's length. */
    static int oneStream(Model model, KVCache cache, BooleanSupplier stop) {
        int leastPasses = Math.min(ONE_STREAM_MOST, Math.ceilDiv(ONE_STREAM_LAYER_PASSES, model.config().blockCount()));
        long start = System.nanoTime();
        var next = new Batch(1);
        int token = 1;
        int position = cache.contextLength();
        int passes = 0;
        long lowest = Long.MAX_VALUE;
        int flat = 0; // passes since a pass last allocated a tenth less than any before
        while (passes < ONE_STREAM_MOST && !stop.getAsBoolean() && System.nanoTime() - start < ONE_STREAM_NANOS) {
            if (position == cache.contextLength()) {
                cache.clear(0);
                position = 0;
            }
            next.clear();
            next.add(0, position++, token, true);
            long before = allocatedBytes();
            token = model.forward(next, cache).argmax(0);
            passes++;
            long allocated = allocatedBytes() - before;
            if (allocated < lowest - lowest / 10) {
                lowest = allocated;
                flat = 0;
            } else {
                flat++;
            }
            boolean settled = flat >= ONE_STREAM_FLAT_PASSES && System.nanoTime() - start >= ONE_STREAM_SETTLED_NANOS;
            if (allocated < COMPILED_ROUND_BYTES && (passes >= leastPasses || settled)) break;
        }
        cache.clear(0);
        return passes;
    }

    /** The kernels' rounds ({@link #KERNEL_ROUNDS_AT_LEAST}), checking {@code stop} before every one; returns the rounds run. */
    static int kernels(Model model, BooleanSupplier stop) {
        List<WeightMatrix> matrices = model.smallestMatrixOfEachType();
        float[][] x = new float[matrices.size()][];
        float[][] out = new float[matrices.size()][];
        for (int m = 0; m < matrices.size(); m++) {
            int cols = matrices.get(m).cols();
            x[m] = new float[2 * cols];
            for (int i = 0; i < x[m].length; i++) x[m][i] = (float) Math.sin(i * 0.37); // any values: the work is the same
            out[m] = new float[2 * matrices.get(m).rows()];
        }
        int rounds = 0;
        while (rounds < KERNEL_ROUNDS && !stop.getAsBoolean()) {
            long before = allocatedBytes();
            for (int m = 0; m < matrices.size(); m++) {
                matrices.get(m).multiply(x[m], 1, out[m]);
                matrices.get(m).multiply(x[m], 2, out[m]);
            }
            rounds++;
            if (rounds >= KERNEL_ROUNDS_AT_LEAST && allocatedBytes() - before < COMPILED_ROUND_BYTES) break;
        }
        return rounds;
    }

    /** Bytes the process's threads have allocated so far (the pool's workers run the kernels), or 0 where the JVM cannot tell. */
    private static long allocatedBytes() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemoryEnabled() ? threads.getTotalThreadAllocatedBytes() : 0;
    }
}
