package dev.inferd.engine.model;

import de.kherud.llama.LlamaModel;
import de.kherud.llama.args.LogFormat;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static dev.inferd.engine.model.LlamaCppReferenceTest.MAX_SEEDS;
import static dev.inferd.engine.model.LlamaCppReferenceTest.MIN_MARGIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Gemma 2, Gemma 3 and Phi-3 layouts give the same first 32 greedy tokens here as in llama.cpp b4916 (which knows
 * the three), in F32 and in the Q4_K_M mix the catalog's files use, with {@link LlamaCppReferenceTest}'s margins. The
 * short prompt and its 32 tokens outrun the synthetic Gemmas' sliding window, and the Phi-3 files (rotating three
 * quarters of each head, as Phi-4-mini) take LongRoPE's long factors at the tests' context of 128.
 *
 * <p>Gemma 2 in Q4_K_M is the exception. At the 26 layers llama.cpp b4916 insists on, a change in the order of float
 * sums alone turns a rounding of the 8-bit activations the other way now and then, and 26 layers carry that far:
 * this engine, fed the prompt in one batch and then one token at a time, parted from itself within 32 tokens on most
 * of 60 seeds, on three of them with every lead above {@link LlamaCppReferenceTest}'s bar both ways (in F32 it never
 * did). So the seed must also give this engine the same 32 tokens both ways, and the first
 * {@link #DEEP_QUANTIZED_TOKENS} are compared: the seeds stable here agreed with llama.cpp for 25 to 32 tokens, the
 * unstable ones parted from it as early as the third (docs/correctness.md).
 */
@Tag("slow")
class ArchitecturesLlamaCppReferenceTest {
    /** The greedy tokens compared for Gemma 2 in Q4_K_M (see above). */
    static final int DEEP_QUANTIZED_TOKENS = 24;

    @TempDir
    static Path dir;

    @BeforeAll
    static void quietLlamaCpp() {
        LlamaModel.setLogger(LogFormat.TEXT, (level, message) -> { });
    }

    /** Each spec, and whether it is the deep quantized case (see above). */
    static Stream<Arguments> models() {
        return Stream.of(
                Arguments.of(SyntheticModels.smallGemma2(GGMLType.F32), false),
                Arguments.of(SyntheticModels.smallGemma2(GGMLType.Q4_K), true),
                Arguments.of(SyntheticModels.smallGemma3(GGMLType.F32), false),
                Arguments.of(SyntheticModels.smallGemma3(GGMLType.Q4_K), false),
                Arguments.of(SyntheticModels.smallPhi3(GGMLType.F32), false),
                Arguments.of(SyntheticModels.smallPhi3(GGMLType.Q4_K), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void sameGreedyTokensAsLlamaCpp(SyntheticModels.Spec base, boolean deepQuantized) throws Exception {
        String promptText = LlamaCppReferenceTest.PROMPT;
        int[] prompt = LlamaCppReferenceTest.promptTokens(promptText, base.vocabSize());
        SyntheticModels.Spec spec = null;
        Path file = null;
        LlamaCppReferenceTest.Greedy ours = null;
        boolean found = false;
        for (int attempt = 0; attempt < MAX_SEEDS && !found; attempt++) {
            spec = base.withSeed(base.seed() + attempt);
            Path target = dir.resolve(spec.architecture() + "-" + spec.weightType() + ".gguf");
            file = spec.weightType() == GGMLType.Q4_K
                    ? SyntheticModels.write(spec, target, KQuantLlamaCppReferenceTest.mediumMix(spec))
                    : SyntheticModels.write(spec, target);
            ours = LlamaCppReferenceTest.greedy(file, prompt);
            found = ours.clear() && (!deepQuantized || sameBothWays(ours, file, prompt));
        }
        assertThat(found).as("no seed in %d gives clear margins: last %s", MAX_SEEDS, ours).isTrue();
        assertThat(ours.minMargin()).isGreaterThan(MIN_MARGIN);

        List<String> theirs = LlamaCppReferenceTest.llamaCppGreedy(file, promptText, prompt);
        int vocab = spec.vocabSize();
        List<String> ourPieces = ours.tokens().stream().map(t -> SyntheticModels.piece(t, vocab)).toList();
        if (deepQuantized) {
            theirs = theirs.subList(0, DEEP_QUANTIZED_TOKENS);
            ourPieces = ourPieces.subList(0, DEEP_QUANTIZED_TOKENS);
        }
        assertThat(theirs).as("seed %d", spec.seed()).containsExactlyElementsOf(ourPieces);
    }

    /** Whether the prompt fed one token at a time gives the same clear run as the prompt in one batch. */
    private static boolean sameBothWays(LlamaCppReferenceTest.Greedy batched, Path file, int[] prompt) throws Exception {
        LlamaCppReferenceTest.Greedy stepwise = LlamaCppReferenceTest.greedy(file, prompt, false);
        return stepwise.clear() && stepwise.tokens().equals(batched.tokens());
    }
}
