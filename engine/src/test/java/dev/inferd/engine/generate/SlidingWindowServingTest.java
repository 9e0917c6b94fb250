package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.Batch;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.ModelConfig;
import dev.inferd.engine.model.SyntheticModels;
import dev.inferd.engine.sample.SamplingParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Gemma-3-shaped model served with less KV memory than full attention over its context would take: the budget
 * counts the sliding-window layers' windows only, a request over the whole context is admitted, and its greedy
 * tokens are those of a cache that keeps every position.
 */
class SlidingWindowServingTest {
    @TempDir
    Path dir;
    private static final int CONTEXT = 256;

    @Test
    void aWholeContextRunsInLessMemoryThanFullAttentionWithTheSameTokens() throws Exception {
        Path file = SyntheticModels.write(SyntheticModels.smallGemma3(GGMLType.F32), dir.resolve("g3.gguf"));
        ModelConfig config;
        try (GGUFFile gguf = GGUFFile.open(file)) {
            config = ModelConfig.fromGGUF(gguf);
        }
        int blockSize = KVCache.DEFAULT_BLOCK_SIZE;
        long fullAttention = KVCache.bytesPerBlock(config.blockCount(), config.kvLength(), blockSize) * (CONTEXT / blockSize);
        long memory = fullAttention / 2;
        var options = new LocalTextGenerator.Options(null, null, CONTEXT).withParallel(1).withStepTokens(16)
                .withKvMemory(memory);
        var schedule = LocalTextGenerator.scheduleFor(config, CONTEXT, options);
        assertThat((long) schedule.blocks() * blockSize).isGreaterThanOrEqualTo(CONTEXT);
        assertThat(KVMemory.of(config, CONTEXT, schedule, memory).bytes()).isLessThanOrEqualTo(memory);

        List<Integer> served;
        int[] prompt;
        try (var g = LocalTextGenerator.open(file, options)) {
            prompt = g.textPrompt("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron");
            var recorder = new ContinuousBatchingTest.Recorder(1);
            ContinuousBatchingTest.generate(g, new GenerationRequest(prompt, 1, CONTEXT - prompt.length, List.of(),
                    SamplingParams.GREEDY, 0), recorder);
            served = recorder.ids();
        }
        assertThat(served.size()).as("tokens generated").isGreaterThan(8 * SyntheticModels.WINDOW);
        assertThat(served).isEqualTo(greedyWithFullCache(file, prompt, served.size()));
    }

    /** Windows for one sequence, three choices: they take turns in the windowed pool and each ends as one alone. */
    @Test
    void moreChoicesThanWindowsTakeTurns() throws Exception {
        Path file = SyntheticModels.write(SyntheticModels.smallGemma3(GGMLType.F32), dir.resolve("g3.gguf"));
        var options = new LocalTextGenerator.Options(null, null, CONTEXT).withParallel(1).withMaxChoices(3).withStepTokens(16);
        try (var g = LocalTextGenerator.open(file, options)) {
            int[] prompt = g.textPrompt("alpha beta gamma delta epsilon");
            var recorder = new ContinuousBatchingTest.Recorder(3);
            ContinuousBatchingTest.generate(g, new GenerationRequest(prompt, 3, 120, List.of(), SamplingParams.GREEDY, 0),
                    recorder);
            List<Integer> expected = greedyWithFullCache(file, prompt, recorder.tokens.get(0).size());
            assertThat(expected).hasSizeGreaterThan(8 * SyntheticModels.WINDOW);
            for (int c = 0; c < 3; c++) assertThat(recorder.tokens.get(c)).as("choice %d", c).isEqualTo(expected);
            assertThat(g.stats().preemptions()).isPositive();
        }
    }

    @Test
    void memoryBelowTheWindowsIsRefused() {
        var config = SyntheticModels.smallGemma3(GGMLType.F32);
        assertThatThrownBy(() -> {
            Path file = SyntheticModels.write(config, dir.resolve("g3.gguf"));
            try (GGUFFile gguf = GGUFFile.open(file)) {
                LocalTextGenerator.scheduleFor(ModelConfig.fromGGUF(gguf), CONTEXT,
                        new LocalTextGenerator.Options(null, null, CONTEXT).withParallel(1).withKvMemory(1000));
            }
        }).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sliding-window layers");
    }

    /** The greedy tokens after {@code prompt}, computed with every position of every layer kept. */
    private static List<Integer> greedyWithFullCache(Path file, int[] prompt, int count) throws Exception {
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, CONTEXT);
            KVCache cache = model.newKVCache(1, CONTEXT);
            var batch = new Batch(CONTEXT);
            for (int p = 0; p < prompt.length; p++) batch.add(0, p, prompt[p], p == prompt.length - 1, true);
            int token = model.forward(batch, cache).argmax(0);
            var tokens = new ArrayList<Integer>();
            for (int p = prompt.length; tokens.size() < count; p++) {
                tokens.add(token);
                batch.clear();
                batch.add(0, p, token, true);
                token = model.forward(batch, cache).argmax(0);
            }
            return tokens;
        }
    }
}
