package dev.inferd.server.e2e;

import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.server.clients.NodeClients;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.http.SpeechModels;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claude Code itself ({@code claude -p}) completes a turn against the server: its first request is a 49 KB
 * streamed {@code POST /v1/messages?beta=true} with a dozen tools, mid-conversation system turns, adaptive
 * thinking and a {@code max_tokens} far beyond any local context. The model is synthetic (random weights, a
 * context that holds the prompt), so the reply is random text; what is checked is that every request Claude
 * Code sent was answered 200 and that it ended its turn without an error.
 */
@Tag("slow")
class ClaudeCodeTest {
    private static final String MODEL = "tiny-agent";
    /** Claude Code's prompt is about 49,000 characters, a token each in the synthetic vocabulary. */
    private static final int CONTEXT = 65_536;

    /** The server's access log, where each request's token counts are (a strong reference keeps the handler). */
    private static final java.util.logging.Logger ACCESS = java.util.logging.Logger.getLogger("inferd.access");

    record Answered(String method, String path, int status) {
    }

    private static int promptTokens(String accessLine) {
        var m = java.util.regex.Pattern.compile(" /v1/messages 200 tokens=(\\d+)\\+").matcher(accessLine);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    @Test
    void claudeCodeCompletesATurn(@TempDir Path work) throws Exception {
        NodeClients node = NodeClients.require();
        var shape = new SyntheticShape(MODEL, "llama", 64, 1, 2, 2, 128, 1024, CONTEXT, 10_000f, 1e-5f, true, false, null);
        Path file = SyntheticModel.write(shape, WeightFormat.named("F16"), 7, work.resolve("tiny-agent.gguf"));
        var model = LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, CONTEXT));
        List<Answered> answered = new CopyOnWriteArrayList<>();
        List<String> accessLog = new CopyOnWriteArrayList<>();
        var handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                accessLog.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        ACCESS.addHandler(handler);
        var registry = new ModelRegistry(Map.of(MODEL, model));
        try (var server = InferdServer.start("127.0.0.1", 0, registry, new SpeechModels(), ServerOptions.defaults(),
                (request, response, next) -> {
                    next.run();
                    answered.add(new Answered(request.method(), request.path(), response.status()));
                })) {
            Path home = Files.createDirectories(work.resolve("home"));
            Path project = Files.createDirectories(work.resolve("project"));
            var command = new ProcessBuilder(node.bin("claude").toString(), "-p", "say hi").directory(project.toFile());
            Map<String, String> env = command.environment();
            env.put("HOME", home.toString());
            env.put("ANTHROPIC_BASE_URL", "http://127.0.0.1:" + server.port());
            env.put("ANTHROPIC_API_KEY", "sk-dummy");
            env.put("ANTHROPIC_MODEL", MODEL);
            env.put("ANTHROPIC_SMALL_FAST_MODEL", MODEL);
            env.put("ANTHROPIC_DEFAULT_HAIKU_MODEL", MODEL);
            env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
            env.put("DISABLE_AUTOUPDATER", "1");
            env.put("DISABLE_TELEMETRY", "1");
            env.put("DISABLE_ERROR_REPORTING", "1");
            env.put("DISABLE_BUG_COMMAND", "1");
            env.put("PATH", node.node().getParent() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            var run = NodeClients.run(command, work, Duration.ofMinutes(8));

            assertThat(run.exitCode()).as("stdout: " + run.stdout() + "\nstderr: " + run.stderr()).isZero();
            assertThat(answered).as("requests Claude Code sent").isNotEmpty()
                    .allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(200))
                    .anySatisfy(a -> assertThat(a.path()).isEqualTo("/v1/messages"));
            // "req_... POST /v1/messages 200 tokens=<prompt>+<output> <ms>ms": the whole prompt was in the context.
            System.out.println("Claude Code's requests: " + accessLog);
            assertThat(accessLog).anySatisfy(line -> assertThat(promptTokens(line)).isGreaterThan(10_000));
        } finally {
            ACCESS.removeHandler(handler);
        }
    }
}
