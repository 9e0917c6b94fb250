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

    private static float half(double v) {
        return Attention.roundToHalf((float) v);
    }
}
