package dev.inferd.engine.model;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same synthetic GGUF file through this engine and through llama.cpp (b4916, via the de.kherud
 * JNI binding) gives the same first 32 greedy tokens, for llama and qwen2 layouts in F32, F16, Q8_0
 * and Q4_0. Every greedy choice in our engine wins by more than {@link #MIN_MARGIN}, so agreement is
 * not decided by rounding. The Q4_0 models run a second, longer prompt too ({@link #LONG_PROMPT}), whose
 * products take the integer GEMM ({@code IntTiledProduct}) rather than the row kernels, in every matrix whose
 * rows come in whole passes of the interleaved copy (all but the llama model's keys and values).
 *
 * <p>After the long prompt the llama-layout Q4_K_M and Q5_K_M models of {@link KQuantLlamaCppReferenceTest} part
 * from llama.cpp at the 6th and 15th generated token. Not the KV cache: this engine already stores keys and
 * values at llama.cpp's F16 precision, and with llama.cpp's cache set to F32 the Q4_K_M run agreed but the short
 * prompt's Q8_0 and Q6_K runs stopped agreeing. These models (logit scale 25) let a rounding grow over a long
 * context; a likely source, not checked, is that llama.cpp's batched products order their float steps otherwise
 * than its one-row products, which this engine follows.
 */
class LlamaCppReferenceTest {
    static final int TOKENS = 32;
    static final float MIN_MARGIN = 0.1f;
    private static final float SEARCH_MARGIN = 1.0f;
    private static final int MIN_DISTINCT = 8;
    // Clear seeds are rare (a few per hundred for small Llama Q4_0), and which ones are clear moves with
    // any change of rounding in the kernels (int8 activations at decode); the search costs ~30 ms a seed.
    static final int MAX_SEEDS = 256;
    static final String PROMPT = "an ox is on my ox";
    /** {@link #PROMPT} six times: 37 tokens with the BOS, a batch large enough for the integer GEMM of Q4_0 and Q4_K. */
    static final String LONG_PROMPT = String.join(" ", Collections.nCopies(6, PROMPT));

    @TempDir
    static Path dir;

    @BeforeAll
    static void quietLlamaCpp() {
        LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> { });
    }

    /**
     * Each model starts its search at the seed the search from 1 lands on with today's kernels, which skips
     * 7 to 45 unclear seeds a model; should a change of rounding make that seed unclear, the search goes on
     * from it as before.
     */
    static Stream<Arguments> models() {
        return Stream.of(
                Arguments.of(SyntheticModels.smallLlama(GGMLType.F32).withSeed(26), shortPrompt()),
                Arguments.of(SyntheticModels.smallLlama(GGMLType.F16).withSeed(26), shortPrompt()),
                Arguments.of(SyntheticModels.smallLlama(GGMLType.Q8_0).withSeed(46), shortPrompt()),
                Arguments.of(SyntheticModels.smallLlama(GGMLType.Q4_0).withSeed(22), shortPrompt()),
                Arguments.of(SyntheticModels.smallQwen2(GGMLType.F32).withSeed(17), shortPrompt()),
                Arguments.of(SyntheticModels.smallQwen2(GGMLType.F16).withSeed(17), shortPrompt()),
                Arguments.of(SyntheticModels.smallQwen2(GGMLType.Q8_0).withSeed(9), shortPrompt()),
                Arguments.of(SyntheticModels.smallQwen2(GGMLType.Q4_0).withSeed(29), shortPrompt()),
                Arguments.of(SyntheticModels.smallLlama(GGMLType.Q4_0).withSeed(15), longPrompt()),
                Arguments.of(SyntheticModels.smallQwen2(GGMLType.Q4_0).withSeed(7), longPrompt()));
    }

    static Named<String> shortPrompt() {
        return Named.of("a 7-token prompt", PROMPT);
    }

    static Named<String> longPrompt() {
        return Named.of("a 37-token prompt", LONG_PROMPT);
    }

    /**
     * Searches seeds (deterministically, from the spec's) for a model whose greedy run in our engine has
     * every choice ahead by {@link #SEARCH_MARGIN} and is not a short loop: llama.cpp quantizes
     * activations to 8 bits for Q8_0/Q4_0 weights, which moves logits by about 0.5% of their spread, so
     * a bare 0.1 lead at logit spread 25 would not prove the engines agree.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("models")
    void sameGreedyTokensAsLlamaCpp(SyntheticModels.Spec base, String promptText) throws Exception {
        int[] prompt = promptTokens(promptText, base.vocabSize());
        SyntheticModels.Spec spec = null;
        Path file = null;
        Greedy ours = null;
        for (int attempt = 0; attempt < MAX_SEEDS && (ours == null || !ours.clear()); attempt++) {
            spec = base.withSeed(base.seed() + attempt);
            file = SyntheticModels.write(spec, dir.resolve(spec.architecture() + "-" + spec.weightType() + ".gguf"));
            ours = greedy(file, prompt);
        }
        assertThat(ours.clear()).as("no seed in %d gives clear margins: last %s", MAX_SEEDS, ours).isTrue();
        assertThat(ours.minMargin()).isGreaterThan(MIN_MARGIN);

        List<String> theirs = llamaCppGreedy(file, promptText, prompt);
        int vocab = spec.vocabSize();
        List<String> ourPieces = ours.tokens().stream().map(t -> SyntheticModels.piece(t, vocab)).toList();
        assertThat(theirs).as("seed %d", spec.seed()).containsExactlyElementsOf(ourPieces);
    }

    /** llama.cpp's first {@link #TOKENS} greedy pieces after {@code promptText}, which it must tokenize as {@code prompt} (BOS first). */
    static List<String> llamaCppGreedy(Path file, String promptText, int[] prompt) {
        List<String> theirs = new ArrayList<>();
        var params = new ModelParameters().setModel(file.toString()).setCtxSize(128).setThreads(1).setGpuLayers(0);
        try (LlamaModel llama = new LlamaModel(params)) {
            assertThat(llama.encode(promptText)).as("llama.cpp tokenizes the prompt as we do")
                    .containsExactly(Arrays.copyOfRange(prompt, 1, prompt.length));
            var inference = new InferenceParameters(promptText).setTemperature(0f).setNPredict(TOKENS).setSeed(1)
                    .setRepeatPenalty(1f).setCachePrompt(false);
            for (LlamaOutput out : llama.generate(inference)) {
                if (!out.text.isEmpty()) theirs.add(out.text); // the stream ends with an empty stop message
            }
        }
        return theirs;
    }

    /** Our engine's greedy continuation and the smallest lead of a choice over the runner-up. */
    record Greedy(List<Integer> tokens, float minMargin) {
        boolean clear() {
            return clear(SEARCH_MARGIN);
        }

        /** Every choice ahead by more than {@code margin}, not a short loop, words only. */
        boolean clear(float margin) {
            return minMargin > margin && new HashSet<>(tokens).size() >= MIN_DISTINCT
                    && tokens.stream().allMatch(t -> t >= SyntheticModels.FIRST_WORD);
        }
    }

    static Greedy greedy(Path file, int[] prompt) throws Exception {
        return greedy(file, prompt, true);
    }

    /** As {@link #greedy(Path, int[])}, with the prompt in one batch or (false) one token at a time. */
    static Greedy greedy(Path file, int[] prompt, boolean promptInOneBatch) throws Exception {
        List<Integer> tokens = new ArrayList<>();
        float minMargin = Float.POSITIVE_INFINITY;
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, Math.max(16, prompt.length)); // the whole prompt in one batch
            KVCache cache = model.newKVCache(1, 128);
            Batch batch;
            if (promptInOneBatch) {
                batch = Batch.ofPrompt(0, 0, prompt);
            } else {
                batch = Batch.ofPrompt(0, 0, new int[] {prompt[0]});
                for (int i = 1; i < prompt.length; i++) {
                    model.forward(batch, cache);
                    batch.clear();
                    batch.add(0, i, prompt[i], true);
                }
            }
            int pos = prompt.length;
            for (int step = 0; step < TOKENS; step++) {
                float[] row = model.forward(batch, cache).row(0);
                int best = argmax(row, -1);
                minMargin = Math.min(minMargin, row[best] - row[argmax(row, best)]);
                tokens.add(best);
                batch.clear();
                batch.add(0, pos++, best, true);
            }
        }
        return new Greedy(tokens, minMargin);
    }

    static int[] promptTokens(String promptText, int vocabSize) {
        String[] words = promptText.split(" ");
        int[] ids = new int[words.length + 1];
        ids[0] = SyntheticModels.BOS;
        for (int i = 0; i < words.length; i++) ids[i + 1] = SyntheticModels.wordToken(words[i], vocabSize);
        return ids;
    }

    private static int argmax(float[] row, int skip) {
        int best = -1;
        for (int t = 0; t < row.length; t++) {
            if (t != skip && (best < 0 || row[t] > row[best])) best = t;
        }
        return best;
    }
}
