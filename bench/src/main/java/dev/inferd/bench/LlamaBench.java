package dev.inferd.bench;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;

import java.util.SplittableRandom;

/**
 * End-to-end speed of a model the way {@code llama-bench} measures it: one sequence, a fresh KV
 * cache for every repetition, one unmeasured warm-up run (it also lets the JIT compile the kernels),
 * and tokens per second per repetition. The warm-up of a test longer than {@link #WARM_UP_POSITIONS}
 * is the same test cut to that many positions: it compiles the same kernels, and a 16k-token prompt
 * is not run twice to be measured once.
 *
 * <ul>
 *   <li>{@code pp<P>}: P prompt tokens through {@link Model#forward} in batches of the model's
 *       {@link Model#maxBatch()}, logits for the last token only;</li>
 *   <li>{@code tg<N>}: N forward passes of one token each, starting from an empty cache, each fed the
 *       previous pass's most likely token (greedy; an argmax costs next to nothing).</li>
 * </ul>
 * A test at a depth D first prefills D random tokens, unmeasured, and then runs from position D.
 *
 * Prompt tokens are random ids drawn from a fixed seed, as llama-bench draws random tokens.
 */
public final class LlamaBench {
    /** Positions a warm-up run covers at most: four batches of 512, every kernel compiled. */
    static final int WARM_UP_POSITIONS = 2048;

    private final Model model;
    private final Batch batch;
    private final int vocabSize;

    public LlamaBench(Model model) {
        this.model = model;
        this.batch = new Batch(model.maxBatch());
        this.vocabSize = model.config().vocabSize();
    }

    /** Runs {@code test} once unmeasured, then {@code repetitions} times. */
    public TestResult run(BenchTest test, int repetitions) {
        if (repetitions <= 0) throw new IllegalArgumentException("repetitions must be positive, got " + repetitions);
        int context = test.positions();
        if (context > model.config().contextLength()) {
            throw new IllegalArgumentException(test.name() + " needs " + context + " positions; the model's context is "
                    + model.config().contextLength());
        }
        runOnce(warmUp(test));
        double[] tokensPerSecond = new double[repetitions];
        for (int r = 0; r < repetitions; r++) tokensPerSecond[r] = test.tokens() / runOnce(test);
        return new TestResult(test, tokensPerSecond);
    }

    /** The test cut to {@link #WARM_UP_POSITIONS} positions, its own tokens first and then its depth. */
    static BenchTest warmUp(BenchTest test) {
        if (test.positions() <= WARM_UP_POSITIONS) return test;
        int tokens = Math.min(test.tokens(), WARM_UP_POSITIONS);
        return new BenchTest(test.kind(), tokens, Math.min(test.depth(), WARM_UP_POSITIONS - tokens));
    }

    /** One run on a fresh cache; returns its seconds. */
    private double runOnce(BenchTest test) {
        KVCache cache = model.newKVCache(1, test.positions());
        cache.ensureWritable(0, 0, test.positions()); // allocating blocks is not what is measured
        int[] tokens = randomTokens(test.positions());
        if (test.depth() > 0) prefill(tokens, 0, test.depth(), false, cache);
        long start = System.nanoTime();
        switch (test.kind()) {
            case PROMPT -> prefill(tokens, test.depth(), tokens.length, true, cache);
            case GENERATION -> generate(test.depth(), test.tokens(), cache);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Positions {@code from..to-1}, with logits for the last when {@code logits}. */
    private void prefill(int[] tokens, int from, int to, boolean logits, KVCache cache) {
        int chunk = model.maxBatch();
        for (int first = from; first < to; first += chunk) {
            int end = Math.min(to, first + chunk);
            batch.clear();
            for (int p = first; p < end; p++) batch.add(0, p, tokens[p], logits && p == to - 1, true);
            model.forward(batch, cache);
        }
    }

    private void generate(int from, int tokens, KVCache cache) {
        int token = randomTokens(1)[0];
        for (int p = from; p < from + tokens; p++) {
            batch.clear();
            batch.add(0, p, token, true);
            Logits logits = model.forward(batch, cache);
            token = logits.argmax(0);
        }
    }

    private int[] randomTokens(int n) {
        var random = new SplittableRandom(42);
        int[] tokens = new int[n];
        for (int i = 0; i < n; i++) tokens[i] = random.nextInt(vocabSize);
        return tokens;
    }
}
