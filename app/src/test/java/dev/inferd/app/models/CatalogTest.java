package dev.inferd.app.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CatalogTest {
    @TempDir
    Path dir;

    @Test
    void theBuiltInCatalogHasAllModelsWithTheirFacts() {
        var catalog = Catalog.builtIn();

        assertThat(catalog.entries()).hasSize(42);
        var stories = catalog.require("stories-260k");
        assertThat(stories.ownedBy()).isEqualTo("karpathy");
        assertThat(stories.architecture()).isEqualTo("llama");
        assertThat(stories.kind()).isEqualTo("base");
        assertThat(stories.hfRepo()).isEqualTo("ggml-org/models-moved");
        assertThat(stories.file()).isEqualTo("tinyllamas/stories260K.gguf");
        assertThat(stories.fileName()).isEqualTo("stories260K.gguf");
        assertThat(stories.revision()).isEqualTo("499bc8821c6b12b4e53c5bffcb21ec206f212d81");
        assertThat(stories.size()).hasValue(1_185_376);
        assertThat(stories.sha256()).isEqualTo("270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d");
        assertThat(stories.contextLength()).isEqualTo(512);
        assertThat(stories.quant()).isEqualTo("F32");
        assertThat(stories.license()).isEqualTo("mit");
        assertThat(catalog.entries()).filteredOn(e -> e.kind().equals("speech")).extracting(CatalogEntry::slug)
                .containsExactly("speech-large-v3");
    }

    @Test
    void entriesWithoutSizeOrChecksumAreKept() {
        var base = Catalog.builtIn().require("llama-3.2-1b");
        assertThat(base.size()).isEmpty();
        assertThat(base.expectedSha256()).isEmpty();
        assertThat(base.revision()).isEqualTo("main");
    }

    @Test
    void userEntriesAddModelsAndOverrideBuiltInOnesBySlug() throws IOException {
        Path user = dir.resolve("catalog.json");
        Files.writeString(user, """
                [
                  {"id": "stories-260k", "owned_by": "me", "hf_repo": "me/mirror", "file": "s.gguf", "revision": "main"},
                  {"id": "my-model", "owned_by": "me", "architecture": "qwen2", "kind": "chat",
                   "hf_repo": "me/my-GGUF", "file": "my.gguf", "revision": "abc", "size_bytes": 10,
                   "sha256": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "quant": "Q4_K_M"}
                ]
                """);

        var catalog = Catalog.load(user);

        assertThat(catalog.entries()).hasSize(43);
        assertThat(catalog.require("stories-260k").hfRepo()).isEqualTo("me/mirror");
        assertThat(catalog.require("stories-260k").ownedBy()).isEqualTo("me");
        assertThat(catalog.require("my-model").sha256()).isEqualTo("a".repeat(64));
        assertThat(catalog.require("my-model").architecture()).isEqualTo("qwen2");
        assertThat(Catalog.load(dir.resolve("absent.json")).entries()).hasSize(42);
    }

    @Test
    void aBadUserCatalogIsAClearErrorNamingTheFile() throws IOException {
        Path user = dir.resolve("catalog.json");
        Files.writeString(user, "[{\"id\": \"x\", \"hf_repo\": \"no-owner\", \"file\": \"f.gguf\", \"revision\": \"main\"}]");
        assertThatThrownBy(() -> Catalog.load(user))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining(user.toString())
                .hasMessageContaining("hf_repo 'no-owner' must look like owner/name");

        Files.writeString(user, "[{\"id\": \"x\", \"hf_repo\": \"a/b\", \"file\": \"../../etc/passwd\", \"revision\": \"main\"}]");
        assertThatThrownBy(() -> Catalog.load(user)).hasMessageContaining("must be a plain relative path");

        Files.writeString(user, "{\"id\": \"x\"");
        assertThatThrownBy(() -> Catalog.load(user)).isInstanceOf(ModelException.class).hasMessageContaining("is not valid");
    }

    @Test
    void anUnknownSlugSuggestsCloseOnes() {
        var catalog = Catalog.builtIn();

        assertThatThrownBy(() -> catalog.require("qwen3-0.6"))
                .isInstanceOfSatisfying(UnknownModelException.class,
                        e -> assertThat(e.closeMatches()).first().isEqualTo("qwen3-0.6b"))
                .hasMessageContaining("Did you mean qwen3-0.6b");
        assertThat(CloseMatches.among("Stories-260K", catalog.entries().stream().map(CatalogEntry::slug).toList(), 3))
                .first().isEqualTo("stories-260k");
        assertThat(CloseMatches.among("gemma-3", catalog.entries().stream().map(CatalogEntry::slug).toList(), 5))
                .contains("gemma-3-1b-it", "gemma-3-4b-it");
        assertThat(CloseMatches.among("zzzzzzzz", catalog.entries().stream().map(CatalogEntry::slug).toList(), 5)).isEmpty();
    }
}
