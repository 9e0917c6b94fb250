package dev.inferd.engine.model;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Cache sharing (n > 1), lazy growth, and input validation, on a synthetic llama model. */
class KVCacheAndBatchTest {
    @TempDir
    static Path dir;
    private static GGUFFile gguf;
    private static Model model;
    private static final int[] PROMPT = {1, 40, 50, 60, 70, 80};

    @BeforeAll
    static void load() throws Exception {
        gguf = GGUFFile.open(SyntheticModels.write(SyntheticModels.smallLlama(GGMLType.F32), dir.resolve("m.gguf")));
        model = Model.load(gguf, 16);
    }

    @AfterAll
    static void close() {
        gguf.close();
    }

    @Test
    void copiedPrefillDecodesLikeItsOwnPrefill() {
        KVCache shared = model.newKVCache(3, 64);
        model.forward(Batch.ofPrompt(0, 0, PROMPT), shared);
        shared.copy(0, 2, PROMPT.length);
        var batch = new Batch(4);
        batch.add(0, PROMPT.length, 99, true);
        batch.add(2, PROMPT.length, 99, true);
        Logits both = model.forward(batch, shared);
        float[] fromOriginal = both.row(0);
        float[] fromCopy = both.row(1);

        KVCache alone = model.newKVCache(1, 64);
        model.forward(Batch.ofPrompt(0, 0, PROMPT), alone);
        var single = new Batch(1);
        single.add(0, PROMPT.length, 99, true);
        float[] reference = model.forward(single, alone).row(0);

        assertThat(fromCopy).containsExactly(reference);
        assertThat(fromOriginal).containsExactly(reference);
        assertThat(shared.length(2)).isEqualTo(PROMPT.length + 1);
    }

    /**
     * The model multiplies prompt tokens and generated tokens with different kernels, so it moves a
     * batch's prompt entries ahead of its generated ones: with the entries interleaved in any order,
     * each sequence must get the bits it gets alone.
     */
    @Test
    void promptAndGeneratedEntriesInAnyOrderGiveTheirOwnResults() {
        // alone: sequence 0 decodes one token after its prompt; sequence 1 prefills its prompt
        KVCache alone = model.newKVCache(2, 64);
        model.forward(Batch.ofPrompt(0, 0, PROMPT), alone);
        var decode = new Batch(1);
        decode.add(0, PROMPT.length, 99, true);
        float[] decodeAlone = model.forward(decode, alone).row(0);
        float[] prefillAlone = model.forward(Batch.ofPrompt(1, 0, PROMPT), alone).row(0);

        // together, the generated entry between prompt entries
        KVCache together = model.newKVCache(2, 64);
        model.forward(Batch.ofPrompt(0, 0, PROMPT), together);
        var mixed = new Batch(16);
        int prefillRow = -1, decodeRow = -1;
        for (int i = 0; i < PROMPT.length; i++) {
            if (i == 2) decodeRow = mixed.add(0, PROMPT.length, 99, true, false);
            int row = mixed.add(1, i, PROMPT[i], i == PROMPT.length - 1, true);
            if (row >= 0) prefillRow = row;
        }
        assertThat(mixed.promptCount()).isEqualTo(PROMPT.length);
        Logits logits = model.forward(mixed, together);
        assertThat(logits.row(decodeRow)).containsExactly(decodeAlone);
        assertThat(logits.row(prefillRow)).containsExactly(prefillAlone);
    }

    /**
     * The last layer runs only the rows that give logits: a prompt whose every token asks for logits gives each
     * token the bits it gets as the last of a prompt that ends there, and a chunk that asks for none leaves the
     * cache as a prompt that asks for its last.
     */
    @Test
    void rowsWithoutLogitsSkipTheLastLayerAndChangeNothing() {
        var next = new Batch(1);
        next.add(0, PROMPT.length, 99, true);
        KVCache lastOnly = model.newKVCache(1, 64);
        float[] lastLogits = model.forward(Batch.ofPrompt(0, 0, PROMPT), lastOnly).row(0);
        float[] nextLogits = model.forward(next, lastOnly).row(0);

        KVCache every = model.newKVCache(1, 64);
        var all = new Batch(16);
        for (int i = 0; i < PROMPT.length; i++) all.add(0, i, PROMPT[i], true, true);
        Logits everyRow = model.forward(all, every);
        assertThat(everyRow.rows()).isEqualTo(PROMPT.length);
        assertThat(everyRow.row(PROMPT.length - 1)).containsExactly(lastLogits);
        KVCache shorter = model.newKVCache(1, 64);
        assertThat(everyRow.row(2)).containsExactly(model.forward(Batch.ofPrompt(0, 0, Arrays.copyOf(PROMPT, 3)), shorter).row(0));
        assertThat(model.forward(next, every).row(0)).containsExactly(nextLogits);

        KVCache none = model.newKVCache(1, 64);
        var noLogits = new Batch(16);
        for (int i = 0; i < PROMPT.length; i++) noLogits.add(0, i, PROMPT[i], false, true);
        assertThat(model.forward(noLogits, none).rows()).isZero();
        assertThat(model.forward(next, none).row(0)).containsExactly(nextLogits);
    }

    /**
     * A prompt of many rows shares its rows' own work (norms, residuals, biases, positions, the cache's stores) out
     * to the pool threads, one of a few rows keeps it on the calling thread: in one batch or in chunks of a few, the
     * same bits, with and without biases (qwen2).
     */
    @Test
    void aLongPromptInOneBatchOrInSmallChunksGivesTheSameBits() throws Exception {
        int[] prompt = new int[40];
        for (int i = 0; i < prompt.length; i++) prompt[i] = 3 + (i * 37) % 700;
        assertSameBitsInOneBatchOrChunks(Model.load(gguf, 64), prompt);
        try (GGUFFile qwen = GGUFFile.open(SyntheticModels.write(SyntheticModels.smallQwen2(GGMLType.F32), dir.resolve("q.gguf")))) {
            assertSameBitsInOneBatchOrChunks(Model.load(qwen, 64), prompt);
        }
    }

    private static void assertSameBitsInOneBatchOrChunks(Model m, int[] prompt) {
        KVCache whole = m.newKVCache(1, 64);
        float[] inOneBatch = m.forward(Batch.ofPrompt(0, 0, prompt), whole).row(0);
        KVCache chunked = m.newKVCache(1, 64);
        float[] inChunks = null;
        for (int from = 0; from < prompt.length; from += 5) {
            int[] chunk = Arrays.copyOfRange(prompt, from, Math.min(prompt.length, from + 5));
            inChunks = m.forward(Batch.ofPrompt(0, from, chunk), chunked).row(0);
        }
        assertThat(inChunks).containsExactly(inOneBatch);
        var next = new Batch(1);
        next.add(0, prompt.length, 99, true);
        assertThat(m.forward(next, chunked).row(0)).containsExactly(m.forward(next, whole).row(0));
    }

    @Test
    void prefillInOneBatchEqualsTokenByToken() {
        KVCache a = model.newKVCache(1, 64);
        float[] batched = model.forward(Batch.ofPrompt(0, 0, PROMPT), a).row(0);
        KVCache b = model.newKVCache(1, 64);
        var one = new Batch(1);
        float[] stepwise = null;
        for (int i = 0; i < PROMPT.length; i++) {
            one.clear();
            one.add(0, i, PROMPT[i], true);
            stepwise = model.forward(one, b).row(0);
        }
        for (int t = 0; t < batched.length; t++) {
            assertThat(stepwise[t]).isCloseTo(batched[t], org.assertj.core.api.Assertions.within(1e-3f));
        }
    }

    @Test
    void storageGrowsOnDemandAndClearFreesIt() {
        KVCache cache = model.newKVCache(2, 1024);
        model.forward(Batch.ofPrompt(1, 0, PROMPT), cache);
        assertThat(cache.blockCount(1)).isEqualTo(1);
        assertThat(cache.capacity(1)).isEqualTo(KVCache.DEFAULT_BLOCK_SIZE);
        assertThat(cache.capacity(0)).isZero();
        assertThat(cache.usedBlocks()).isEqualTo(1);
        cache.clear(1);
        assertThat(cache.capacity(1)).isZero();
        assertThat(cache.length(1)).isZero();
        assertThat(cache.usedBlocks()).isZero();
    }

    @Test
    void rejectsBadInput() {
        KVCache cache = model.newKVCache(1, 8);
        var batch = new Batch(2);
        batch.add(0, 8, 5, true);
        assertThatThrownBy(() -> model.forward(batch, cache)).hasMessageContaining("beyond the context length 8");
        batch.clear();
        batch.add(1, 0, 5, true);
        assertThatThrownBy(() -> model.forward(batch, cache)).hasMessageContaining("sequence 1");
        batch.clear();
        batch.add(0, 0, 100_000, true);
        assertThatThrownBy(() -> model.forward(batch, cache)).hasMessageContaining("outside the vocabulary");
        assertThatThrownBy(() -> new Batch(1).add(0, -1, 1, false)).hasMessageContaining("negative position");
    }

    @Test
    void unsupportedArchitectureIsNamed() throws Exception {
        Path file = dir.resolve("gpt2.gguf");
        new GGUFWriter().put("general.architecture", "gpt2").write(file);
        try (GGUFFile f = GGUFFile.open(file)) {
            assertThatThrownBy(() -> ModelConfig.fromGGUF(f)).isInstanceOf(UnsupportedModelException.class)
                    .hasMessageContaining("'gpt2' is not supported").hasMessageContaining("llama, qwen2");
        }
    }

    @Test
    void missingKeyIsNamed() throws Exception {
        Path file = dir.resolve("partial.gguf");
        new GGUFWriter().put("general.architecture", "qwen2").put("qwen2.embedding_length", 64)
                .put("qwen2.attention.head_count", 4).write(file);
        try (GGUFFile f = GGUFFile.open(file)) {
            assertThatThrownBy(() -> ModelConfig.fromGGUF(f)).hasMessageContaining("qwen2.");
        }
    }
}
