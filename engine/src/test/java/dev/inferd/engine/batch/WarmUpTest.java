package dev.inferd.engine.batch;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The scheduler's warm-up runs its throwaway sequences, and stops between passes once a request waits. */
class WarmUpTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("warm-llama", "llama", 64, 2, 4, 2, 128, 1000, 128,
            10_000f, 1e-5f, true, false, null);

    @TempDir
    Path dir;

    @Test
    void runsGeneratedTokensThenThePromptUnlessARequestIsWaiting() throws Exception {
        Path file = SyntheticModel.write(SHAPE, WeightFormat.Q8_0, 3, dir.resolve("m.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 16);
            // generated tokens until their kernels allocate nothing (at least the least, at most the most),
            // then the prompt and the tokens after it
            assertThat(WarmUp.run(model, () -> false)).isBetween(WarmUp.GENERATED_AT_LEAST + 1 + WarmUp.AFTER_PROMPT,
                    WarmUp.GENERATED + 1 + WarmUp.AFTER_PROMPT);

            var checks = new AtomicInteger();
            assertThat(WarmUp.run(model, () -> checks.incrementAndGet() > 3)).as("a request came after three passes").isEqualTo(3);
            assertThat(WarmUp.run(model, () -> true)).as("a request was waiting from the start").isZero();
        }
    }
}
