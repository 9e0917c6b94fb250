package dev.inferd.engine.generate;

import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.sample.SamplingParams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Greedy identity on a small Q4_0 file, where products take the integer kernels and the decode copies
 * (and the integer tiles once a step holds 32 rows, as when a prompt chunk runs beside drafts): the
 * file as its own draft, and prompt lookup, give the tokens of plain decoding, alone and together.
 */
@Tag("slow")
class SpeculativeQuantizedTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("small-llama-q", "llama", 256, 2, 4, 2, 512, 2048, 1024,
            500_000f, 1e-5f, true, false, null);

    @TempDir
    static Path dir;
    private static LocalTextGenerator plain;
    private static LocalTextGenerator selfDraft;
    private static LocalTextGenerator lookup;

    @BeforeAll
    static void open() throws Exception {
        Path file = SyntheticModel.write(SHAPE, WeightFormat.named("Q4_0"), 3, dir.resolve("small-q4_0.gguf"));
        var options = LocalTextGenerator.Options.DEFAULTS.withStepTokens(64);
        plain = LocalTextGenerator.open(file, options.withPromptLookup(false));
        selfDraft = LocalTextGenerator.open(file, options.withDraft(file).withDraftMinProbability(0f).withDraftAlways(true));
        lookup = LocalTextGenerator.open(file, options);
    }

    @AfterAll
    static void close() {
        for (var g : new LocalTextGenerator[] {plain, selfDraft, lookup}) if (g != null) g.close();
    }

    private static int[] prompt(int seed) {
        int[] head = new int[12];
        for (int i = 0; i < head.length; i++) head[i] = 1 + (seed * 131 + i * 37) % 2000;
        int[] p = new int[head.length * 3 + (seed % 5) * 10];
        for (int i = 0; i < p.length; i++) p[i] = i < head.length * 3 ? head[i % head.length] : 1 + (seed + i * 53) % 2000;
        return p;
    }

    private static List<Integer> tokens(LocalTextGenerator g, int[] prompt) {
        var request = new GenerationRequest(prompt, 1, 40, List.of(), new SamplingParams(0f, 1f, 1L, 0f, 0f, Map.of()), 0);
        List<Integer> out = new ArrayList<>();
        Generation generation = g.submit(request);
        try {
            while (true) {
                switch (generation.next()) {
                    case GenerationEvent.Text t -> t.tokens().forEach(lp -> out.add(lp.token()));
                    case GenerationEvent.Finish f -> { }
                    case GenerationEvent.End e -> {
                        return out;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void greedyTokensAreTheSameAloneAndTogether() throws Exception {
        List<List<Integer>> expected = new ArrayList<>();
        for (int s = 0; s < 8; s++) expected.add(tokens(plain, prompt(s)));
        for (var g : List.of(selfDraft, lookup)) {
            for (int s = 0; s < 3; s++) assertThat(tokens(g, prompt(s))).as("prompt %d alone", s).isEqualTo(expected.get(s));
            List<CompletableFuture<List<Integer>>> together = new ArrayList<>();
            for (int s = 0; s < 8; s++) {
                int[] p = prompt(s);
                together.add(CompletableFuture.supplyAsync(() -> tokens(g, p), Thread::startVirtualThread));
            }
            for (int s = 0; s < 8; s++) assertThat(together.get(s).get()).as("prompt %d together", s).isEqualTo(expected.get(s));
        }
        assertThat(selfDraft.stats().acceptance()).isGreaterThan(0.95);
    }
}
