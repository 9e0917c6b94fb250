package dev.inferd.bench;

import dev.inferd.engine.batch.Batch;
import dev.inferd.engine.batch.KVCache;
import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;

import java.util.SplittableRandom;

/**
 * End-to-end speed of a model the way {@code llama-bench} measures it: one sequence, a fresh KV
 * cache for every repetition, one unmeasured warm-up run (it also lets the JIT compile the kernels),
 * and tokens per second per repetition.
 *
 * <ul>
 *   <li>{@code pp<P>}: P prompt tokens through {@link Model#forward} in batches of the model's
 *       {@link Model#maxBatch()}, logits for the last token only;</li>
 *   <li>{@code tg<N>}: N forward passes of one token each, starting from an empty cache, each fed the
 *       previous pass's most likely token (greedy; an argmax costs next to nothing).</li>
 * </ul>
 *
 * Prompt tokens are random ids drawn from a fixed seed, as llama-bench draws random tokens.
 */
public final class LlamaBench {
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
        int context = test.tokens();
        if (context > model.config().contextLength()) {
            throw new IllegalArgumentException(test.name() + " needs " + context + " positions; the model's context is "
                    + model.config().contextLength());
        }
        runOnce(test);
        double[] tokensPerSecond = new double[repetitions];
        for (int r = 0; r < repetitions; r++) tokensPerSecond[r] = test.tokens() / runOnce(test);
        return new TestResult(test, tokensPerSecond);
    }

    /** One run on a fresh cache; returns its seconds. */
    private double runOnce(BenchTest test) {
        KVCache cache = model.newKVCache(1, test.tokens());
        cache.ensureWritable(0, 0, test.tokens()); // allocating blocks is not what is measured
        int[] prompt = test.kind() == BenchTest.Kind.PROMPT ? randomTokens(test.tokens()) : null;
        long start = System.nanoTime();
        switch (test.kind()) {
            case PROMPT -> prefill(prompt, cache);
            case GENERATION -> generate(test.tokens(), cache);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private void prefill(int[] tokens, KVCache cache) {
        int chunk = model.maxBatch();
        for (int from = 0; from < tokens.length; from += chunk) {
            int to = Math.min(tokens.length, from + chunk);
            batch.clear();
            for (int p = from; p < to; p++) batch.add(0, p, tokens[p], p == tokens.length - 1, true);
            model.forward(batch, cache);
        }
    }

    private void generate(int tokens, KVCache cache) {
        int token = randomTokens(1)[0];
        for (int p = 0; p < tokens; p++) {
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
