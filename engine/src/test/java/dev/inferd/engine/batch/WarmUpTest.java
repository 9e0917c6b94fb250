package dev.inferd.engine.batch;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.tensor.WeightMatrix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The scheduler's warm-up runs the product kernels, then its throwaway sequences, and stops between rounds and passes once a request waits. */
class WarmUpTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("warm-llama", "llama", 64, 2, 4, 2, 128, 1000, 128,
            10_000f, 1e-5f, true, false, null);

    @TempDir
    Path dir;

    @Test
    void runsTheKernelsThenGeneratedTokensThenThePromptUnlessARequestIsWaiting() throws Exception {
        Path file = SyntheticModel.write(SHAPE, WeightFormat.Q8_0, 3, dir.resolve("m.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 16);
            // the kernels alone until a round allocates nothing (at least the least, at most the most)
            assertThat(WarmUp.kernels(model, () -> false)).isBetween(WarmUp.KERNEL_ROUNDS_AT_LEAST, WarmUp.KERNEL_ROUNDS);
            // generated tokens until their kernels allocate nothing (at least the least, at most the most),
            // then the prompt and the tokens after it, then one stream's tokens (its least on 2 layers is its most)
            assertThat(WarmUp.sequences(model, () -> false)).isBetween(WarmUp.GENERATED_AT_LEAST + 1 + WarmUp.AFTER_PROMPT + 1,
                    WarmUp.GENERATED + 1 + WarmUp.AFTER_PROMPT + WarmUp.ONE_STREAM_MOST);

            var checks = new AtomicInteger();
            assertThat(WarmUp.kernels(model, () -> checks.incrementAndGet() > 3)).as("a request came after three rounds").isEqualTo(3);
            checks.set(0);
            assertThat(WarmUp.sequences(model, () -> checks.incrementAndGet() > 3)).as("a request came after three passes").isEqualTo(3);
            checks.set(0);
            assertThat(WarmUp.run(model, () -> checks.incrementAndGet() > 3)).as("a request came during the kernels' rounds")
                    .satisfies(r -> {
                        assertThat(r.kernelRounds()).isEqualTo(3);
                        assertThat(r.passes()).isZero();
                    });
            assertThat(WarmUp.run(model, () -> true)).as("a request was waiting from the start")
                    .extracting(WarmUp.Report::kernelRounds, WarmUp.Report::passes).containsExactly(0, 0);
        }
    }

    @Test
    void warmsTheKernelsOfEveryWeightTypeTheModelMultipliesByOnItsSmallestMatrix() throws Exception {
        // rows of 64 and 128 columns take the mix's fallbacks: Q5_0 for Q4_K, Q8_0 for Q6_K (the tied
        // output and the last layer's attn_v and ffn_down)
        Path file = SyntheticModel.write(SHAPE, WeightFormat.Q4_K_M, 3, dir.resolve("k.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 16);
            List<WeightMatrix> matrices = model.smallestMatrixOfEachType();
            assertThat(matrices).extracting(WeightMatrix::type).containsExactlyInAnyOrder(GGMLType.Q5_0, GGMLType.Q8_0);
            int kvLength = SHAPE.embeddingLength() / SHAPE.headCount() * SHAPE.headCountKv();
            assertThat(matrices).as("attn_k or attn_v of each type, not the output head").allSatisfy(m -> {
                assertThat(m.rows()).isEqualTo(kvLength);
                assertThat(m.cols()).isEqualTo(SHAPE.embeddingLength());
            });
        }
    }
}
