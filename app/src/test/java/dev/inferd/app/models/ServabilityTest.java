package dev.inferd.app.models;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The built-in catalog as a checked fact: which of its models this build can serve. */
class ServabilityTest {

    @Test
    void everyModelOfTheCatalogIsServable() {
        var entries = Catalog.builtIn().entries();
        assertThat(entries).hasSize(42);
        assertThat(entries).allSatisfy(e -> assertThat(e.servability().servable())
                .as("%s: %s", e.slug(), e.servability().reason()).isTrue());
        var text = entries.stream().filter(e -> !e.kind().equals("speech")).toList();
        assertThat(text).hasSize(41);
        assertThat(text).allSatisfy(e -> assertThat(e.tokenizer()).as(e.slug()).isNotNull());
    }

    @Test
    void unsupportedArchitectureTokenizerOrQuantizationIsRefusedBeforeAnyDownload() {
        var mamba = new CatalogEntry("m", "x", "mamba", "chat", "o/r", "m.gguf", "main", 1L, null, 2048, "Q4_K_M", null, null, "llama");
        var iq = new CatalogEntry("i", "x", "llama", "chat", "o/r", "i.gguf", "main", 1L, null, 2048, "IQ2_XS", null, null, "llama");
        var bpe = new CatalogEntry("b", "x", "llama", "chat", "o/r", "b.gguf", "main", 1L, null, 2048, "Q8_0", null, null, "gpt2/unheard-of");
        assertThat(mamba.servability().reason()).contains("architecture mamba");
        assertThat(iq.servability().reason()).contains("quantization IQ2_XS");
        assertThat(bpe.servability().reason()).contains("tokenizer gpt2/unheard-of");
        assertThatThrownBy(() -> ModelResolver.requireServable(mamba)).isInstanceOf(UnservableModelException.class)
                .hasMessageContaining("cannot be served");
    }
}
