package dev.inferd.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ModelCommandsTest {
    @TempDir
    Path home;
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void modelsPrintsTheCatalogAsATableMarkingCachedModels() throws IOException {
        Path cached = home.resolve("models/ggml-org/models-moved/499bc8821c6b12b4e53c5bffcb21ec206f212d81/tinyllamas/stories260K.gguf");
        Files.createDirectories(cached.getParent());
        Files.write(cached, new byte[1234]);
        var command = new ModelsCommand(Map.of("INFERD_HOME", home.toString())::get, print(out), print(err));

        int exit = new CommandLine(command).execute();

        assertThat(exit).isZero();
        var lines = out().lines().toList();
        assertThat(lines.getFirst()).matches("MODEL +CACHED +SIZE +ARCH +QUANT +KIND +SERVABLE");
        assertThat(lines).anyMatch(l -> l.matches("stories-260k +yes +1\\.2 kB +llama +F32 +base +yes"));
        assertThat(lines).anyMatch(l -> l.matches("llama-3\\.2-1b-instruct +- +807\\.7 MB +llama +Q4_K_M +chat +yes"));
        assertThat(lines).anyMatch(l -> l.matches("llama-3\\.2-1b +- +\\? +llama +Q4_K_M +base +yes"));
        assertThat(lines).anyMatch(l -> l.matches("speech-large-v3 +- +3\\.1 GB +whisper +F16 +speech +yes"));
        assertThat(out()).contains("Downloaded models are in " + home.resolve("models"));
        assertThat(out()).contains("42 of 42 models can be served by this build.");
    }

    @Test
    void pullRefusesAnUnservableModelBeforeDownloadingAnything() throws IOException {
        Files.writeString(home.resolve("catalog.json"), """
                [{"id": "big-mamba", "architecture": "mamba", "hf_repo": "me/m-GGUF", "file": "m.gguf", "revision": "main"}]
                """);
        // an endpoint nothing listens on: a download attempt would fail otherwise than the refusal asserted below
        Map<String, String> env = Map.of("INFERD_HOME", home.toString(), "INFERD_HF_ENDPOINT", "http://127.0.0.1:9");

        assertThat(new CommandLine(new PullCommand(env::get, print(out), print(err))).execute("big-mamba")).isEqualTo(1);
        assertThat(err()).contains("big-mamba cannot be served by this build: architecture mamba is not supported");
        assertThat(home.resolve("models/me")).doesNotExist();
    }

    @Test
    void modelsJsonIsAnArrayForScripts() throws IOException {
        var command = new ModelsCommand(Map.of("INFERD_HOME", home.toString())::get, print(out), print(err));

        int exit = new CommandLine(command).execute("--json");

        assertThat(exit).isZero();
        JsonNode rows = new ObjectMapper().readTree(out());
        assertThat(rows.isArray()).isTrue();
        assertThat(rows).hasSize(42);
        JsonNode stories = null;
        for (JsonNode row : rows) {
            if (row.get("id").asText().equals("stories-260k")) {
                stories = row;
            }
        }
        assertThat(stories).isNotNull();
        assertThat(stories.get("cached").asBoolean()).isFalse();
        assertThat(stories.get("size_bytes").asLong()).isEqualTo(1_185_376);
        assertThat(stories.get("owned_by").asText()).isEqualTo("karpathy");
        assertThat(stories.get("architecture").asText()).isEqualTo("llama");
        assertThat(stories.get("quant").asText()).isEqualTo("F32");
        assertThat(stories.get("kind").asText()).isEqualTo("base");
        assertThat(stories.get("path").asText()).endsWith("tinyllamas/stories260K.gguf");
    }

    @Test
    void pullDownloadsThenReportsTheCachedFile() throws IOException {
        byte[] bytes = "not really a model".getBytes(StandardCharsets.UTF_8);
        var server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/me/m-GGUF/resolve/main/m.gguf", ex -> {
            try (ex) {
                ex.sendResponseHeaders(200, bytes.length);
                ex.getResponseBody().write(bytes);
            }
        });
        server.start();
        try {
            Files.writeString(home.resolve("catalog.json"), """
                    [{"id": "mine", "hf_repo": "me/m-GGUF", "file": "m.gguf", "revision": "main"}]
                    """);
            Map<String, String> env = Map.of("INFERD_HOME", home.toString(),
                    "INFERD_HF_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort());

            assertThat(new CommandLine(new PullCommand(env::get, print(out), print(err))).execute("mine")).isZero();
            Path file = home.resolve("models/me/m-GGUF/main/m.gguf");
            assertThat(out()).isEqualTo("mine: " + file + System.lineSeparator());
            assertThat(Files.readAllBytes(file)).isEqualTo(bytes);

            out.reset();
            assertThat(new CommandLine(new PullCommand(env::get, print(out), print(err))).execute("mine")).isZero();
            assertThat(out()).startsWith("mine: already downloaded, " + file);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void pullOfAnUnknownSlugFailsBeforeDownloadingAnything() {
        var command = new PullCommand(Map.of("INFERD_HOME", home.toString(),
                "INFERD_HF_ENDPOINT", "http://127.0.0.1:9")::get, print(out), print(err));

        int exit = new CommandLine(command).execute("stories-260k", "smollm2-135m-instuct");

        assertThat(exit).isEqualTo(1);
        assertThat(err()).startsWith("inferd pull: unknown model 'smollm2-135m-instuct'")
                .contains("Did you mean smollm2-135m-instruct");
        assertThat(home.resolve("models")).doesNotExist();
    }
}
