package dev.inferd.engine.model;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.kvcache.KVCache;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Gemma-3-shaped model (five sliding-window layers of {@link SyntheticModels#WINDOW} positions to one global layer)
 * over a context many windows long: a cache whose sliding-window layers let go of what falls behind their window gives
 * the logits, bit for bit, of one that keeps every position, and holds less memory.
 */
class SlidingWindowCacheTest {
    @TempDir
    static Path dir;
    private static GGUFFile gguf;
    private static Model model;
    private static final int CONTEXT = 256;
    private static final int CHUNK = 16;

    @BeforeAll
    static void load() throws Exception {
        gguf = GGUFFile.open(SyntheticModels.write(SyntheticModels.smallGemma3(GGMLType.F32), dir.resolve("g3.gguf")));
        model = Model.load(gguf, CHUNK);
    }

    @AfterAll
    static void close() {
        gguf.close();
    }

    /** The greedy tokens after a prompt, each step's logits, and the windowed layers' most blocks held at once. */
    private record Run(List<Integer> tokens, List<float[]> logits, int mostWindowedBlocks) {
    }

    /** A prompt of {@code promptLength} in chunks of {@link #CHUNK}, then greedy tokens to the end of the context. */
    private static Run run(KVCache cache, int promptLength, boolean release) {
        var tokens = new ArrayList<Integer>();
        var logits = new ArrayList<float[]>();
        int most = 0;
        int[] prompt = new int[promptLength];
        for (int i = 0; i < promptLength; i++) prompt[i] = SyntheticModels.FIRST_WORD + (i * 7) % 300;
        float[] last = null;
        for (int from = 0; from < promptLength; from += CHUNK) {
            var batch = new Batch(CHUNK);
            int to = Math.min(promptLength, from + CHUNK);
            for (int p = from; p < to; p++) batch.add(0, p, prompt[p], p == promptLength - 1);
            Logits l = model.forward(batch, cache);
            if (to == promptLength) last = l.row(0);
            most = Math.max(most, cache.windowedUsedBlocks());
            if (release) cache.releaseOutsideWindows(0);
        }
        for (int p = promptLength; p < CONTEXT; p++) {
            logits.add(last);
            int token = argmax(last);
            tokens.add(token);
            var batch = new Batch(1);
            batch.add(0, p, token, true);
            last = model.forward(batch, cache).row(0);
            most = Math.max(most, cache.windowedUsedBlocks());
            if (release) cache.releaseOutsideWindows(0);
        }
        return new Run(tokens, logits, most);
    }

    private static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }

    @Test
    void windowedLayersThatLetGoGiveTheTokensOfAFullCacheInLessMemory() {
        int blocks = Math.ceilDiv(CONTEXT, KVCache.DEFAULT_BLOCK_SIZE);
        KVCache full = model.newKVCache(1, CONTEXT);
        KVCache windowed = model.newKVCache(1, CONTEXT, KVCache.DEFAULT_BLOCK_SIZE, blocks, CHUNK, 1);
        Run reference = run(full, 40, false);
        Run slid = run(windowed, 40, true);

        assertThat(slid.tokens()).isEqualTo(reference.tokens());
        for (int i = 0; i < reference.logits().size(); i++) {
            assertThat(slid.logits().get(i)).as("logits of step %d", i).containsExactly(reference.logits().get(i));
        }
        // a window of 12 positions and writes of up to 16: at most three blocks of 16 held at once, of 16 in all
        int perSequence = model.config().slidingWindows().blocksPerSequence(KVCache.DEFAULT_BLOCK_SIZE, CONTEXT, CHUNK);
        assertThat(perSequence).isEqualTo(3);
        assertThat(slid.mostWindowedBlocks()).isLessThanOrEqualTo(perSequence);
        assertThat(windowed.windowedTotalBlocks()).isEqualTo(perSequence);
        assertThat(reference.mostWindowedBlocks()).isEqualTo(blocks);
        long fullAttention = KVCache.bytesPerBlock(model.config().blockCount(), model.config().kvLength(),
                KVCache.DEFAULT_BLOCK_SIZE) * blocks;
        long held = windowed.bytesPerBlock() * windowed.totalBlocks() + windowed.windowedBytes();
        // one global layer in six keeps the whole context, the five others three blocks in sixteen
        assertThat(held).isEqualTo(fullAttention / 6 + fullAttention * 5 / 6 * 3 / 16);
    }

    @Test
    void aPrefixCachedWithItsWindowContinuesAsTheSequenceThatWroteIt() {
        int blocks = 2 * Math.ceilDiv(CONTEXT, KVCache.DEFAULT_BLOCK_SIZE);
        KVCache cache = model.newKVCache(2, CONTEXT, KVCache.DEFAULT_BLOCK_SIZE, blocks, CHUNK, 2);
        int[] prompt = new int[100];
        for (int i = 0; i < prompt.length; i++) prompt[i] = SyntheticModels.FIRST_WORD + (i * 11) % 300;
        for (int from = 0; from < prompt.length; from += CHUNK) {
            var batch = new Batch(CHUNK);
            for (int p = from; p < Math.min(prompt.length, from + CHUNK); p++) batch.add(0, p, prompt[p], p == prompt.length - 1);
            model.forward(batch, cache);
            cache.commitFullBlocks(0, prompt);
            cache.releaseOutsideWindows(0);
        }
        var next = new Batch(1);
        next.add(0, prompt.length, 99, true);
        float[] writer = model.forward(next, cache).row(0);
        cache.clear(0);

        // the windowed layers' blocks of the prompt's last window are still cached: the hit covers its 6 full blocks
        int hit = cache.attachCachedPrefix(1, prompt, prompt.length);
        assertThat(hit).isEqualTo(96);
        var batch = new Batch(CHUNK);
        for (int p = hit; p < prompt.length; p++) batch.add(1, p, prompt[p], false);
        if (batch.size() > 0) model.forward(batch, cache);
        next.clear();
        next.add(1, prompt.length, 99, true);
        assertThat(model.forward(next, cache).row(0)).containsExactly(writer);
    }
}
