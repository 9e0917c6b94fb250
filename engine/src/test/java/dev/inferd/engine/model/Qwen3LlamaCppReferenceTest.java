package dev.inferd.engine.model;

import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static dev.inferd.engine.model.LlamaCppReferenceTest.MAX_SEEDS;
import static dev.inferd.engine.model.LlamaCppReferenceTest.MIN_MARGIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Qwen3 layout (per-head q/k norms, no biases) gives the same first 32 greedy tokens as llama.cpp, in F32, in
 * Q8_0 (the catalog's Qwen3-0.6B file) and in the Q4_K_M mix (its other Qwen3 files): llama.cpp b4916, the binding's
 * build, does not know qwen3, so a newer llama.cpp's tokens on the same synthetic files are test data
 * ({@code qwen3-llama-cpp-greedy.properties}, with the commit that produced them). The seed search is
 * {@link LlamaCppReferenceTest}'s, and must land on the recorded seed: the file is then the very one llama.cpp ran.
 *
 * <p>That llama.cpp ran its {@code simple} example, with flash attention, which sums the values in F16 on the CPU; its
 * logits move a little more than b4916's in the other reference tests. In the Q4_K_M mix, whose activations round to
 * 8 bits, the first seed with margins above 1.0 parted from it at the 26th token, where this engine's lead was 1.43,
 * and the next three agreed on all 32; so that case asks for margins above {@link #Q4_K_SEARCH_MARGIN}.
 */
class Qwen3LlamaCppReferenceTest {
    static final float Q4_K_SEARCH_MARGIN = 1.5f;

    @TempDir
    static Path dir;

    @ParameterizedTest
    @EnumSource(value = GGMLType.class, names = {"F32", "Q8_0", "Q4_K"})
    void sameGreedyTokensAsLlamaCpp(GGMLType type) throws Exception {
        Properties expected = expected();
        SyntheticModels.Spec base = SyntheticModels.smallQwen3(type);
        int[] prompt = LlamaCppReferenceTest.promptTokens(LlamaCppReferenceTest.PROMPT, base.vocabSize());
        SyntheticModels.Spec spec = null;
        LlamaCppReferenceTest.Greedy ours = null;
        float searchMargin = type == GGMLType.Q4_K ? Q4_K_SEARCH_MARGIN : 1.0f;
        for (int attempt = 0; attempt < MAX_SEEDS && (ours == null || !ours.clear(searchMargin)); attempt++) {
            spec = base.withSeed(base.seed() + attempt);
            Path file = dir.resolve("qwen3-" + type + ".gguf");
            ours = LlamaCppReferenceTest.greedy(type == GGMLType.Q4_K
                    ? SyntheticModels.write(spec, file, KQuantLlamaCppReferenceTest.mediumMix(spec))
                    : SyntheticModels.write(spec, file), prompt);
        }
        assertThat(ours.clear(searchMargin)).as("no seed in %d gives clear margins: last %s", MAX_SEEDS, ours).isTrue();
        assertThat(ours.minMargin()).isGreaterThan(MIN_MARGIN);
        assertThat(spec.seed()).as("the seed llama.cpp ran").isEqualTo(Long.parseLong(expected.getProperty(type + ".seed")));

        int vocab = spec.vocabSize();
        List<String> ourPieces = ours.tokens().stream().map(t -> SyntheticModels.piece(t, vocab)).toList();
        List<String> theirs = Arrays.asList(expected.getProperty(type + ".pieces").split("\\|"));
        assertThat(ourPieces).containsExactlyElementsOf(theirs);
    }

    private static Properties expected() throws IOException {
        var properties = new Properties();
        try (InputStream in = Qwen3LlamaCppReferenceTest.class.getResourceAsStream("qwen3-llama-cpp-greedy.properties")) {
            assertThat(in).as("the recorded llama.cpp tokens").isNotNull();
            properties.load(in);
        }
        return properties;
    }
}
