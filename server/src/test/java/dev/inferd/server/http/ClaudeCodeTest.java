package dev.inferd.server.http;

import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.SyntheticVocabulary;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claude Code itself ({@code claude -p}) completes a turn against the server: its first request is a 49 KB
 * streamed {@code POST /v1/messages?beta=true} with a dozen tools, a system turn inside {@code messages},
 * adaptive thinking and a {@code max_tokens} far beyond any local context (clamped). The model is synthetic
 * (random weights, a context that holds the prompt, its turn ended after a few tokens), so the reply is random
 * text; what is checked is that every request Claude Code sent was answered 200, with the whole prompt in the
 * context, and that Claude Code ended its turn without an error.
 */
@Tag("slow")
class ClaudeCodeTest {
    private static final String MODEL = "tiny-agent";
    /** Claude Code's prompt is about 49,000 characters, nearly a token each in the synthetic vocabulary. */
    private static final int CONTEXT = 65_536;
    /** The server's access log, where each request's token counts are (a strong reference keeps the handler). */
    private static final java.util.logging.Logger ACCESS = java.util.logging.Logger.getLogger("inferd.access");
    private static final Pattern MESSAGES_TOKENS = Pattern.compile(" /v1/messages 200 tokens=(\\d+)\\+");

    @Test
    void claudeCodeCompletesATurn(@TempDir Path dir) throws Exception {
        NodeClients clients = NodeClients.get();
        var shape = new SyntheticShape(MODEL, "llama", 64, 1, 2, 2, 128, 1024, CONTEXT, 10_000f, 1e-5f, true, false, null);
        Path file = SyntheticModel.write(shape, WeightFormat.named("F16"), 7, dir.resolve("tiny-agent.gguf"));
        var model = LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, CONTEXT));
        var registry = new ModelRegistry();
        registry.ready(MODEL, new EndsTurnAfter(model, 24, SyntheticVocabulary.EOS));
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpFilter recorder = (request, response, next) -> {
            next.run();
            seen.add(request.method() + " " + request.path() + " " + response.status());
        };
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
        try (var server = InferdServer.start("127.0.0.1", 0, registry, new SpeechModels(), ServerOptions.defaults(), recorder)) {
            Path project = Files.createDirectories(dir.resolve("project"));
            var builder = new ProcessBuilder(clients.bin("claude").toString(), "-p", "say hi").directory(project.toFile())
                    .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            var env = builder.environment();
            NodeClients.isolate(env);
            env.put("PATH", clients.path());
            env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
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
            Process claude = builder.start();
            String output = new String(claude.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean done = claude.waitFor(8, TimeUnit.MINUTES);
            if (!done) claude.destroyForcibly();

            assertThat(done).as(output).isTrue();
            assertThat(claude.exitValue()).as(output).isZero();
            assertThat(seen).as(output).contains("POST /v1/messages 200").allMatch(s -> s.endsWith(" 200"));
            // "req_... POST /v1/messages 200 tokens=<prompt>+<output> <ms>ms": the whole prompt was in the context.
            assertThat(accessLog).as(output).anySatisfy(line -> assertThat(promptTokens(line)).isGreaterThan(10_000));
        } finally {
            ACCESS.removeHandler(handler);
        }
    }

    private static int promptTokens(String accessLine) {
        var m = MESSAGES_TOKENS.matcher(accessLine);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }
}
