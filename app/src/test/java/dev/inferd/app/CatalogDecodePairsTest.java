package dev.inferd.app;

import dev.inferd.app.models.Catalog;
import dev.inferd.app.models.CatalogEntry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The catalog decode table's pairs: one synthetic file per distinct (shape, type), and the rows it prints. */
class CatalogDecodePairsTest {
    static final List<CatalogEntry> BUILT_IN = Catalog.builtIn().entries();

    static CatalogEntry entry(String slug, String architecture, String kind, String quant) {
        return new CatalogEntry(slug, "someone", architecture, kind, "owner/repo", slug + ".gguf", "main", null, null,
                null, quant, null, null);
    }

    @Test
    void modelsSharingAShapeAndATypeShareOnePair() {
        var pairs = CatalogDecodePairs.of(List.of(
                entry("qwen2.5-7b-instruct", "qwen2", "chat", "Q4_K_M"),
                entry("smollm2-135m-instruct", "llama", "chat", "Q8_0"),
                entry("deepseek-r1-distill-qwen-7b", "qwen2", "chat", "Q4_K_M"),
                entry("smollm2-135m", "llama", "base", "Q4_K_M"),
                entry("qwen2.5-coder-7b-instruct", "qwen2", "chat", "Q4_K_M")));

        assertThat(pairs.pairs()).extracting(CatalogDecodePairs.Pair::name)
                .containsExactly("smollm2-135m:Q4_K_M", "smollm2-135m:Q8_0", "qwen2.5-7b:Q4_K_M"); // smallest first
        assertThat(pairs.pairs().getLast().slugs())
                .containsExactly("qwen2.5-7b-instruct", "deepseek-r1-distill-qwen-7b", "qwen2.5-coder-7b-instruct");
        assertThat(pairs.without()).isEmpty();
    }

    @Test
    void modelsWithoutATwinAreListedWithTheReason() {
        var pairs = CatalogDecodePairs.of(List.of(
                entry("speech-large-v3", "whisper", "speech", "F16"),
                entry("my-own-model", "llama", "chat", "Q4_K_M"),
                entry("qwen3-8b", "qwen3", "chat", "IQ4_XS"),
                entry("qwen3-8b-q8", "qwen3", "chat", "Q8_0")));

        assertThat(pairs.pairs()).isEmpty();
        assertThat(pairs.without()).extracting(CatalogDecodePairs.Without::slug)
                .containsExactly("speech-large-v3", "my-own-model", "qwen3-8b", "qwen3-8b-q8");
        assertThat(pairs.without().get(0).reason()).contains("not a text decoder");
        assertThat(pairs.without().get(1).reason()).contains("no synthetic shape");
        assertThat(pairs.without().get(2).reason()).contains("no type IQ4_XS");
    }

    @Test
    void theBuiltInCatalogMakesThirtyOnePairsAndLeavesOutTheSpeechModelAndTheSmallestTestModel() {
        var pairs = CatalogDecodePairs.of(BUILT_IN);

        assertThat(pairs.pairs()).hasSize(31);
        assertThat(pairs.pairs().stream().mapToInt(p -> p.slugs().size()).sum()).isEqualTo(BUILT_IN.size() - 2);
        assertThat(pairs.without()).extracting(CatalogDecodePairs.Without::slug)
                .containsExactlyInAnyOrder("speech-large-v3", "stories-260k");
        Set<String> names = pairs.pairs().stream().map(CatalogDecodePairs.Pair::name).collect(Collectors.toSet());
        assertThat(names).hasSize(31).contains("llama-3.1-8b:Q4_K_M", "qwen3-0.6b:Q8_0", "smollm2-135m:Q8_0",
                "smollm2-135m:Q4_K_M", "gemma-3-12b:Q4_K_M", "stories-15m:Q4_0");
    }

    /**
     * The shapes are right: each twin's tensors come to the published file's size. Left out: the Qwen2.5 0.5B
     * file, which stores its tied head twice where the twin stores it once (a token reads it once either way),
     * and the 19 MB stories-15m, whose vocabulary's text is a good part of the file.
     */
    @Test
    void everyTwinIsAsLargeAsThePublishedFile() {
        Map<String, CatalogEntry> bySlug = BUILT_IN.stream().collect(Collectors.toMap(CatalogEntry::slug, Function.identity()));
        int compared = 0;
        for (var pair : CatalogDecodePairs.of(BUILT_IN).pairs()) {
            for (String slug : pair.slugs()) {
                Long published = bySlug.get(slug).sizeBytes();
                if (published == null || slug.startsWith("qwen2.5-0.5b") || slug.equals("stories-15m")) continue;
                assertThat((double) pair.fileBytes() / published).as(slug + " as " + pair.name()).isBetween(0.94, 1.03);
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(30);
    }

    @Test
    void filtersMatchTheShapeTypeOrAModelOfThePair() {
        var pair = CatalogDecodePairs.of(List.of(entry("deepseek-r1-distill-qwen-7b", "qwen2", "chat", "Q4_K_M"))).pairs().getFirst();

        assertThat(pair.selectedBy(null)).isTrue();
        assertThat(pair.selectedBy("")).isTrue();
        assertThat(pair.selectedBy("qwen2.5")).isTrue();
        assertThat(pair.selectedBy("gemma, DeepSeek")).isTrue();
        assertThat(pair.selectedBy("q4_k_m")).isTrue();
        assertThat(pair.selectedBy("gemma,llama-3")).isFalse();
    }

    @Test
    void aRowGivesMediansAndTheRatioOfEachRound() {
        var measured = new CatalogDecodeTable.Measured("qwen3-0.6b Q8_0", List.of("qwen3-0.6b"), 679_000_000L,
                List.of(20.0, 24.0, 21.0), List.of(0.90, 0.96, 0.92), List.of(10.0, 30.0, 20.0));

        assertThat(measured.row()).isEqualTo(
                "| qwen3-0.6b Q8_0 | qwen3-0.6b | 0.63 GiB | 21.00 | 0.92 | 20.00 | 2.00, 0.80, 1.05 | 1.05 |");
        assertThat(CatalogDecodeTable.median(List.of(3.0, 1.0, 2.0, 10.0))).isCloseTo(2.5, within(1e-9));
        var withoutLlama = new CatalogDecodeTable.Measured("stories-15m Q4_0", List.of("stories-15m"), 10 << 20,
                List.of(300.0), List.of(), List.of());
        assertThat(withoutLlama.row()).isEqualTo("| stories-15m Q4_0 | stories-15m | 0.01 GiB | 300.00 | - | - | - | - |");
    }

    @Test
    void aResumedTableKnowsItsRows() {
        var rows = List.of(CatalogDecodeTable.HEADER, CatalogDecodeTable.RULE,
                "| qwen3-0.6b Q8_0 | qwen3-0.6b | 0.63 GiB | 21.00 | 0.92 | 20.00 | 1.05 | 1.05 |",
                "| llama-3.2-1b Q4_K_M | llama-3.2-1b-instruct, llama-3.2-1b | 0.75 GiB | 21.00 | 0.92 | 20.00 | 1.05 | 1.05 |");

        assertThat(CatalogDecodeTable.labelsIn(rows)).containsExactly("qwen3-0.6b Q8_0", "llama-3.2-1b Q4_K_M");
    }
}
