package dev.inferd.app.models;

import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelResolverTest {
    @TempDir
    Path home;
    FakeHub hub;

    @BeforeEach
    void start() throws IOException {
        hub = new FakeHub();
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private ModelResolver resolver() {
        var config = ModelsConfig.fromEnvironment(Map.of(
                "INFERD_HOME", home.toString(),
                "INFERD_HF_ENDPOINT", hub.endpoint().toString())::get);
        return ModelResolver.create(config, new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1), d -> { }),
                DownloadProgress.NONE);
    }

    @Test
    void aCatalogSlugIsDownloadedFromTheEndpointAndVerified() throws IOException {
        Path fixture = Fixtures.require("models/stories260K.gguf");
        var entry = Catalog.builtIn().require("stories-260k");
        hub.serve(entry.hfRepo(), entry.revision(), entry.file(), Files.readAllBytes(fixture));

        ResolvedModel model = resolver().resolveModel("stories-260k", false);

        assertThat(model.id()).isEqualTo("stories-260k");
        assertThat(model.ownedBy()).isEqualTo("karpathy");
        assertThat(model.file()).isEqualTo(home.resolve("models/ggml-org/models-moved/499bc8821c6b12b4e53c5bffcb21ec206f212d81/tinyllamas/stories260K.gguf"));
        assertThat(FakeHub.sha256(Files.readAllBytes(model.file())))
                .isEqualTo("270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d");
        assertThat(hub.hubRequests()).singleElement().extracting(FakeHub.Request::path)
                .isEqualTo("/ggml-org/models-moved/resolve/499bc8821c6b12b4e53c5bffcb21ec206f212d81/tinyllamas/stories260K.gguf");

        hub.requests.clear();
        assertThat(resolver().resolve("stories-260k", true)).as("cached, so offline works").isEqualTo(model.file());
        assertThat(hub.requests).isEmpty();
    }

    @Test
    void anExistingFileIsUsedAsIs() throws IOException {
        Path file = Files.writeString(home.resolve("My-Model.gguf"), "GGUF");

        ResolvedModel model = resolver().resolveModel(file.toString(), true);

        assertThat(model.file()).isEqualTo(file);
        assertThat(model.id()).isEqualTo("My-Model");
        assertThat(model.entry()).isEmpty();
        assertThat(model.ownedBy()).isEqualTo("user");
    }

    @Test
    void aWhisperFileIsServedUnderItsNameWithoutTheExtensionAsAGgufFileIs() throws IOException {
        Path whisper = Files.writeString(home.resolve("ggml-tiny.bin"), "ggml");
        Path gguf = Files.writeString(home.resolve("qwen.GGUF"), "GGUF");

        assertThat(resolver().resolveModel(whisper.toString(), true).id()).isEqualTo("ggml-tiny");
        assertThat(resolver().resolveModel(gguf.toString(), true).id()).isEqualTo("qwen");
        assertThat(ModelResolver.idOf(Path.of("notes.txt"))).isEqualTo("notes.txt");
        assertThat(ModelResolver.idOf(Path.of(".bin"))).isEqualTo(".bin");
    }

    @Test
    void aMissingGgufPathIsAClearError() {
        assertThatThrownBy(() -> resolver().resolve("models/absent.gguf", false))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("absent.gguf does not exist");
        assertThatThrownBy(() -> resolver().resolve(home.toString(), false))
                .hasMessageContaining("is a folder");
    }

    @Test
    void offlineWithoutTheFileNamesTheSlugAndThePullCommand() {
        assertThatThrownBy(() -> resolver().resolve("qwen3-0.6b", true))
                .isInstanceOf(ModelNotCachedException.class)
                .hasMessageContaining("'qwen3-0.6b' is not downloaded yet")
                .hasMessageContaining("./inferd pull qwen3-0.6b");
        assertThat(hub.requests).isEmpty();
    }

    @Test
    void anUnknownSlugListsCloseMatches() {
        assertThatThrownBy(() -> resolver().resolve("qwen2.5-05b-instruct", false))
                .isInstanceOfSatisfying(UnknownModelException.class,
                        e -> assertThat(e.closeMatches()).first().isEqualTo("qwen2.5-0.5b-instruct"))
                .hasMessageContaining("unknown model 'qwen2.5-05b-instruct'");
    }

    @Test
    void userCatalogEntriesUnderInferdHomeResolve() throws IOException {
        byte[] bytes = "GGUF user model".getBytes(StandardCharsets.UTF_8);
        hub.serve("me/m-GGUF", "main", "m.gguf", bytes);
        Files.writeString(home.resolve("catalog.json"), """
                [{"id": "mine", "owned_by": "me", "hf_repo": "me/m-GGUF", "file": "m.gguf", "revision": "main"}]
                """);

        var resolver = resolver();
        Path file = resolver.resolve("mine", false);

        assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
        assertThat(resolver.entry("mine")).hasValueSatisfying(e -> assertThat(e.ownedBy()).isEqualTo("me"));
        assertThat(resolver.store().sha256FileFor(resolver.entry("mine").orElseThrow())).exists();
    }

    @Test
    void progressOffATerminalIsPlainLines() throws IOException {
        byte[] bytes = new byte[50_000];
        hub.serve("me/m-GGUF", "main", "m.gguf", bytes);
        Files.writeString(home.resolve("catalog.json"), """
                [{"id": "mine", "hf_repo": "me/m-GGUF", "file": "m.gguf", "revision": "main", "size_bytes": 50000}]
                """);
        var err = new ByteArrayOutputStream();

        var resolver = ModelResolver.fromEnvironment(Map.of(
                "INFERD_HOME", home.toString(),
                "INFERD_HF_ENDPOINT", hub.endpoint().toString())::get, new PrintStream(err, true, StandardCharsets.UTF_8));
        resolver.resolve("mine", false);

        assertThat(err.toString(StandardCharsets.UTF_8))
                .doesNotContain("\r")
                .contains("downloading m.gguf (50.0 kB)")
                .contains("m.gguf: done, 50.0 kB");
    }
}
