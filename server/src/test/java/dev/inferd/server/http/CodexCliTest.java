package dev.inferd.server.http;

import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.model.SyntheticModels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Codex CLI ({@code codex exec}) completes one turn against the server over {@code wire_api = "responses"}:
 * a synthetic model with random weights whose context holds Codex's first prompt (about 40 KB: its
 * instructions and tool definitions), with a test hook that ends each reply after a few tokens. The reply
 * is random text; what is checked is that the turn completes without a protocol error.
 */
@Tag("slow")
class CodexCliTest {

    private static final String MODEL = "synthetic-codex";
    private static final int CONTEXT = 65_536;

    private InferdServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void codexExecCompletesATurn(@TempDir Path dir) throws Exception {
        NodeClients clients = NodeClients.get();
        var spec = new SyntheticModels.Spec("qwen3", 64, 2, 4, 2, 128, 800, CONTEXT, GGMLType.F32, false, false,
                1_000_000f, 25f, 1);
        Path file = SyntheticModels.write(spec, dir.resolve("codex-synthetic.gguf"));
        var model = LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, CONTEXT));
        var registry = new ModelRegistry();
        List<String> prompts = new CopyOnWriteArrayList<>();
        registry.ready(MODEL, new EndsTurnAfter(model, 12, SyntheticModels.EOS, prompts));
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpFilter recorder = (request, response, next) -> {
            next.run();
            seen.add(request.method() + " " + request.path() + " " + response.status());
        };
        server = InferdServer.start("127.0.0.1", 0, registry, new SpeechModels(), ServerOptions.defaults(), recorder);

        Path home = Files.createDirectories(dir.resolve("codex-home"));
        Files.writeString(home.resolve("config.toml"), """
                model = "%s"
                model_provider = "inferd"
                approval_policy = "never"
                sandbox_mode = "read-only"
                check_for_update_on_startup = false

                [model_providers.inferd]
                name = "inferd test server"
                base_url = "http://127.0.0.1:%d/v1"
                wire_api = "responses"
                env_key = "INFERD_TEST_KEY"
                request_max_retries = 0
                stream_max_retries = 0
                """.formatted(MODEL, server.port()));
        Path work = Files.createDirectories(dir.resolve("work"));
        var builder = new ProcessBuilder(clients.bin("codex").toString(), "exec", "--skip-git-repo-check",
                "Say hello.").directory(work.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        NodeClients.isolate(builder.environment());
        builder.environment().put("PATH", clients.path());
        builder.environment().put("CODEX_HOME", home.toString());
        builder.environment().put("HOME", dir.toString());
        builder.environment().put("INFERD_TEST_KEY", "sk-dummy");
        Process codex = builder.start();
        String output = new String(codex.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean done = codex.waitFor(8, TimeUnit.MINUTES);
        if (!done) codex.destroyForcibly();

        assertThat(done).as(output).isTrue();
        assertThat(codex.exitValue()).as(output).isZero();
        assertThat(seen).as(output).contains("POST /v1/responses 200");
        assertThat(seen).as(output).allMatch(s -> !s.endsWith(" 400") && !s.endsWith(" 500"));
        // Codex's tools reached the model as functions (hosted tools are not shown; see docs/responses.md).
        assertThat(prompts).isNotEmpty();
        var names = java.util.regex.Pattern.compile("\"name\":\\s*\"([A-Za-z0-9_-]+)\"").matcher(prompts.getLast())
                .results().map(m -> m.group(1)).distinct().toList();
        System.out.println("Codex's first prompt: " + prompts.getLast().length() + " characters; tools shown: " + names);
        assertThat(names).isNotEmpty();
    }
}
