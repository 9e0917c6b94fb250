package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.model.Architecture;
import dev.inferd.engine.model.ModelConfig;
import dev.inferd.engine.model.RopeScaling;
import dev.inferd.engine.model.SyntheticModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without {@code --ctx}, a model is served with its trained context as far as its KV budget holds one sequence of it. */
class ContextSizingTest {
    /** Llama-3.2-1B's attention: 16 layers of 8 key-value heads of 64, trained on 131,072 positions. */
    private static final ModelConfig LLAMA_3_2_1B = new ModelConfig(Architecture.LLAMA, 2048, 16, 8192, 32, 8, 64,
            1e-5f, 500_000f, 64, RopeScaling.NONE, 131_072, 128_256);
    /** Keys and values as halves: 16 layers x 2 x 512 x 2 bytes. */
    private static final long LLAMA_BYTES_PER_POSITION = 32 * 1024;

    @TempDir
    Path dir;

    @Test
    void aBudgetThatHoldsTheTrainedContextServesAllOfIt() {
        long budget = 131_072 * LLAMA_BYTES_PER_POSITION + 1;
        assertThat(ContextSizing.context(LLAMA_3_2_1B, 0, budget, 8, 512)).isEqualTo(131_072);
        assertThat(ContextSizing.context(LLAMA_3_2_1B, 0, 64L << 30, 8, 512)).isEqualTo(131_072);
    }

    @Test
    void aSmallerBudgetServesTheWholeBlocksItHolds() {
        assertThat(ContextSizing.context(LLAMA_3_2_1B, 0, 1L << 30, 8, 512)).isEqualTo(32_768);
        // 1,000 positions' worth holds 62 blocks of 16
        assertThat(ContextSizing.context(LLAMA_3_2_1B, 0, 1000 * LLAMA_BYTES_PER_POSITION, 8, 512)).isEqualTo(992);
    }

    @Test
    void anAskedContextIsKept() {
        assertThat(ContextSizing.context(LLAMA_3_2_1B, 4096, 1L << 20, 8, 512)).isEqualTo(4096);
    }

    @Test
    void aBudgetBelowOneBlockIsRefusedWithTheNumbers() {
        assertThatThrownBy(() -> ContextSizing.context(LLAMA_3_2_1B, 0, 1000, 8, 512))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("KV memory of 1000 bytes").hasMessageContaining("524288 bytes");
    }

    @Test
    void theDefaultBudgetIsAQuarterOfMemoryAndAtMostHalfTheHeap() {
        assertThat(ContextSizing.defaultBudget()).isPositive()
                .isLessThanOrEqualTo(Runtime.getRuntime().maxMemory() / 2)
                .isLessThanOrEqualTo(MachineMemory.physicalBytes() / 4);
    }

    @Test
    void theServedModelReportsItsContextTheTrainedOneAndWhatDecided() throws Exception {
        var spec = SyntheticModels.smallLlama(GGMLType.F32);
        spec = new SyntheticModels.Spec(spec.architecture(), spec.embeddingLength(), spec.blockCount(), spec.headCount(),
                spec.headCountKv(), spec.feedForwardLength(), spec.vocabSize(), 8192, spec.weightType(), spec.tiedOutput(),
                spec.biases(), spec.ropeFreqBase(), spec.logitScale(), spec.seed());
        Path file = SyntheticModels.write(spec, dir.resolve("llama.gguf"));
        long perPosition = 2L * spec.blockCount() * spec.headCountKv() * spec.headDim() * 2;

        List<ModelEvent> events = new ArrayList<>();
        try (var g = LocalTextGenerator.open(file, new LocalTextGenerator.Options(null, null, 0)
                .withKvMemory(1000 * perPosition).withParallel(2), events::add)) {
            assertThat(g.description().contextLength()).isEqualTo(992);
            assertThat(g.trainedContextLength()).isEqualTo(8192);
            var loaded = (ModelEvent.Loaded) events.getFirst();
            assertThat(loaded.kvMemory().bytesPerPosition()).isEqualTo(perPosition);
            assertThat(loaded.kvMemory().budget()).isEqualTo(1000 * perPosition);
            assertThat(loaded.kvMemory().positions()).isEqualTo(992);
            int[] prompt = new int[992];
            java.util.Arrays.fill(prompt, SyntheticModels.FIRST_WORD);
            assertThatThrownBy(() -> g.submit(new GenerationRequest(prompt, 1, 1, List.of(),
                    dev.inferd.engine.sample.SamplingParams.GREEDY, 0)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("992 tokens")
                    .hasMessageContaining("context holds 992");
        }
        try (var g = LocalTextGenerator.open(file, new LocalTextGenerator.Options(null, null, 0).withParallel(2))) {
            assertThat(g.description().contextLength()).as("a default budget holds 8192 positions of this model").isEqualTo(8192);
        }
    }

    @Test
    void aDraftModelsCacheTakesItsShareOfTheBudget() {
        // the same attention as the draft: each takes half of every position's bytes
        assertThat(KVMemory.targetShare(LLAMA_3_2_1B, LLAMA_3_2_1B)).isEqualTo(0.5);
        long budget = 256L << 20;
        var options = new LocalTextGenerator.Options(null, null, 0).withParallel(2).withKvMemory(budget);
        var alone = LocalTextGenerator.scheduleFor(LLAMA_3_2_1B, 4096, options);
        var beside = LocalTextGenerator.scheduleFor(LLAMA_3_2_1B, 4096, options, 0.5);
        assertThat(beside.blocks()).isEqualTo(alone.blocks() / 2);
        var memory = KVMemory.of(LLAMA_3_2_1B, LLAMA_3_2_1B, 4096, beside, budget);
        assertThat(memory.bytes()).as("both caches, within the budget").isLessThanOrEqualTo(budget).isGreaterThan(budget * 9 / 10);
        assertThat(memory.bytesPerPosition()).isEqualTo(2 * LLAMA_BYTES_PER_POSITION);
    }
}
