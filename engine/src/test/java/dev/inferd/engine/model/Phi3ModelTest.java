package dev.inferd.engine.model;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Phi-3 conventions read from a file, and LongRoPE's factors chosen by the context (its comparison with llama.cpp
 * is {@link ArchitecturesLlamaCppReferenceTest}'s, at one context).
 */
class Phi3ModelTest {
    @TempDir
    static Path dir;

    @Test
    void readsPhi3Conventions() throws Exception {
        Path file = SyntheticModels.write(SyntheticModels.smallPhi3(GGMLType.F32), dir.resolve("phi3.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file)) {
            ModelConfig config = ModelConfig.fromGGUF(gguf);
            assertThat(config.architecture()).isEqualTo(Architecture.PHI3);
            assertThat(config.ropeDimensionCount()).isEqualTo(config.headDim() * 3 / 4);
            assertThat(config.conventions().ropeAttentionFactor()).isEqualTo(1.19f);
            assertThat(config.conventions().ropeOriginalContext()).isEqualTo(SyntheticModels.PHI3_ORIGINAL_CONTEXT);
            assertThat(config.conventions().queryScale()).isEqualTo((float) (1 / Math.sqrt(config.headDim())));
            assertThat(config.conventions().slidingWindow()).as("Phi-3's window is left out, as llama.cpp does").isZero();
        }
    }

    @Test
    void longFactorsApplyBeyondTheOriginalContext() throws Exception {
        Path file = SyntheticModels.write(SyntheticModels.smallPhi3(GGMLType.F32), dir.resolve("phi3-rope.gguf"));
        int[] prompt = LlamaCppReferenceTest.promptTokens(LlamaCppReferenceTest.PROMPT, 800);
        float[] within = lastLogits(file, prompt, SyntheticModels.PHI3_ORIGINAL_CONTEXT);
        float[] withinAgain = lastLogits(file, prompt, SyntheticModels.PHI3_ORIGINAL_CONTEXT / 2);
        float[] beyond = lastLogits(file, prompt, 2 * SyntheticModels.PHI3_ORIGINAL_CONTEXT);
        assertThat(withinAgain).as("short factors for any context up to the original").containsExactly(within);
        assertThat(beyond).as("long factors beyond it").isNotEqualTo(within);
    }

    private static float[] lastLogits(Path file, int[] prompt, int context) throws Exception {
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 16);
            KVCache cache = model.newKVCache(1, context);
            return model.forward(Batch.ofPrompt(0, 0, prompt), cache).row(0);
        }
    }
}
