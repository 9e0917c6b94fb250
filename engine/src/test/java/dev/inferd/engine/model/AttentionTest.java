package dev.inferd.engine.model;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The grouped heads' attention ({@link Attention#HEADS} query heads a task, keys and values read once for them)
 * gives every head the bits of the head alone, over prompts that span several cache blocks and end inside one,
 * for groups of four, of eight (two tasks a key-value head) and of seven (a task of four and three heads alone).
 */
class AttentionTest {
    @ParameterizedTest(name = "{0} heads, {1} key-value heads, head size {2}")
    @CsvSource({"32, 8, 64", "16, 2, 64", "14, 2, 64", "8, 2, 128", "8, 2, 48"})
    void groupedHeadsGiveEachHeadItsOwnBits(int headCount, int headCountKv, int headDim) {
        var config = new ModelConfig(Architecture.LLAMA, headCount * headDim, 1, 64, headCount, headCountKv, headDim,
                1e-5f, 10000f, headDim, RopeScaling.NONE, 4096, 16);
        int blockSize = 16;
        int rows = 45; // two whole blocks and part of a third
        var cache = new KVCache(1, headCountKv, headDim, 2, 256, blockSize, 16);
        var random = new Random(7);
        var batch = new Batch(rows + 1);
        int[] entries = new int[rows + 1];
        float[] keys = new float[config.kvLength()], values = new float[config.kvLength()];
        for (int i = 0; i < rows; i++) {
            int cell = cache.prepareWrite(0, i);
            for (int c = 0; c < config.kvLength(); c++) {
                keys[c] = half(random.nextGaussian());
                values[c] = half(random.nextGaussian());
            }
            cache.store(0, cell, keys, 0, values, 0);
            cache.markWritten(0, i);
            batch.add(0, i, 1, false, true);
            entries[i] = i;
        }
        // and a row of another sequence, one position long
        int cell = cache.prepareWrite(1, 0);
        float[] onlyValues = new float[config.kvLength()];
        for (int c = 0; c < config.kvLength(); c++) {
            keys[c] = half(random.nextGaussian());
            onlyValues[c] = half(random.nextGaussian());
        }
        cache.store(0, cell, keys, 0, onlyValues, 0);
        batch.add(1, 0, 1, false);
        entries[rows] = rows;
        float[] q = new float[(rows + 1) * config.queryLength()];
        for (int i = 0; i < q.length; i++) q[i] = half(3 * random.nextGaussian());

        float[] grouped = new float[q.length], alone = new float[q.length];
        try (var pool = new WorkerPool(2)) {
            new Attention(config, pool).run(batch, cache, 0, rows + 1, entries, q, grouped);
            new Attention(config, pool, 1).run(batch, cache, 0, rows + 1, entries, q, alone);
        }

        assertThat(alone).doesNotContain(Float.NaN).isNotEqualTo(new float[alone.length]);
        // the one-position sequence's output is its only value row
        for (int h = 0; h < headCount; h++) {
            for (int c = 0; c < headDim; c++) {
                assertThat(alone[rows * config.queryLength() + h * headDim + c])
                        .isEqualTo(onlyValues[h / config.groupSize() * headDim + c]);
            }
        }
        assertThat(grouped).isEqualTo(alone);
    }

    /**
     * A row's output is the same bits whether its run keeps its scores between the passes (a row at position 1020
     * alone sees 1021 positions) or computes them again (in a run up to position 1035, past
     * {@link Attention#KEPT_POSITIONS}), and both are the softmax-weighted sum of values a plain double-precision
     * attention gives, within the halves' rounding.
     */
    @ParameterizedTest(name = "{0} heads, {1} key-value heads")
    @CsvSource({"14, 2", "8, 2"})
    void keptAndRecomputedScoresGiveTheSameBits(int headCount, int headCountKv) {
        int headDim = 64;
        var config = new ModelConfig(Architecture.LLAMA, headCount * headDim, 1, 64, headCount, headCountKv, headDim,
                1e-5f, 10000f, headDim, RopeScaling.NONE, 2048, 16);
        int positions = Attention.KEPT_POSITIONS + 12, alone = positions - 16;
        var cache = new KVCache(1, headCountKv, headDim, 1, 2048, 16, 128);
        var random = new Random(11);
        float[][] keys = new float[positions][config.kvLength()], values = new float[positions][config.kvLength()];
        for (int t = 0; t < positions; t++) {
            for (int c = 0; c < config.kvLength(); c++) {
                keys[t][c] = half(random.nextGaussian());
                values[t][c] = half(random.nextGaussian());
            }
            int cell = cache.prepareWrite(0, t);
            cache.store(0, cell, keys[t], 0, values[t], 0);
            cache.markWritten(0, t);
        }
        int rows = 16;
        float[] q = new float[rows * config.queryLength()];
        for (int i = 0; i < q.length; i++) q[i] = half(random.nextGaussian());
        var run = new Batch(rows);
        int[] entries = new int[rows];
        for (int r = 0; r < rows; r++) {
            run.add(0, alone + r, 1, false, true);
            entries[r] = r;
        }
        var one = new Batch(1);
        one.add(0, alone, 1, false, true);
        float[] inRun = new float[q.length], byItself = new float[config.queryLength()];
        try (var pool = new WorkerPool(2)) {
            new Attention(config, pool).run(run, cache, 0, rows, entries, q, inRun);
            new Attention(config, pool).run(one, cache, 0, 1, new int[] {0}, q, byItself);
        }
        assertThat(java.util.Arrays.copyOf(inRun, config.queryLength())).isEqualTo(byItself);

        for (int r = 0; r < rows; r += rows - 1) {
            int position = alone + r;
            for (int h = 0; h < headCount; h++) {
                int kv = h / config.groupSize() * headDim, qOff = r * config.queryLength() + h * headDim;
                double[] scores = new double[position + 1];
                double max = Double.NEGATIVE_INFINITY, sum = 0;
                for (int t = 0; t <= position; t++) {
                    for (int c = 0; c < headDim; c++) scores[t] += (double) q[qOff + c] * keys[t][kv + c];
                    scores[t] /= Math.sqrt(headDim);
                    max = Math.max(max, scores[t]);
                }
                for (int t = 0; t <= position; t++) sum += Math.exp(scores[t] - max);
                for (int c = 0; c < headDim; c++) {
                    double expected = 0;
                    for (int t = 0; t <= position; t++) expected += Math.exp(scores[t] - max) / sum * values[t][kv + c];
                    assertThat((double) inRun[qOff + c]).as("row %d head %d output %d", r, h, c)
                            .isCloseTo(expected, org.assertj.core.api.Assertions.within(2e-3));
                }
            }
        }
    }

    private static float half(double v) {
        return Attention.roundToHalf((float) v);
    }
}
