package dev.inferd.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench-serve} against an in-process server; checks the shape of what it prints, never timings. */
class BenchServeCommandTest {

    /** Emits {@code maxTokens} one-word tokens, 1 ms apart; a prompt token per word. */
    static final class WordGenerator implements TextGenerator {
        @Override
        public ModelDescription description() {
            return new ModelDescription("words", "inferd-tests", 1_700_000_000L, "llama", 1000L, "F32", 512);
        }

        @Override
        public int[] chatPrompt(List<ChatMessage> messages) {
            return new int[1 + messages.stream().mapToInt(m -> m.content().split(" ").length).sum()];
        }

        @Override
        public int[] textPrompt(String prompt) {
            return new int[1 + prompt.split(" ").length];
        }

        @Override
        public Generation submit(GenerationRequest request) {
            var generation = new Generation();
            Thread.ofVirtual().start(() -> {
                int generated = 0;
                for (; generated < request.maxTokens() && !generation.isCancelled(); generated++) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                    generation.text(0, " word" + generated, List.of());
                }
                generation.finish(0, FinishReason.LENGTH);
                generation.end(new GenerationResult(request.prompt().length, generated));
            });
            return generation;
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final InferdServer server = InferdServer.start("127.0.0.1", 0, Map.of("words", new WordGenerator()));
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        server.stop();
    }

    private int run(String... args) {
        var command = new BenchServeCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandLine(command).execute(args);
    }

    private String url() {
        return "http://127.0.0.1:" + server.port() + "/v1";
    }

    private List<JsonNode> jsonLines() throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) lines.add(MAPPER.readTree(line));
        return lines;
    }

    @Test
    void printsOneJsonObjectPerConcurrency() throws Exception {
        int exit = run("--url", url(), "--model", "words", "--concurrency", "1,2", "--max-tokens", "5",
                "--requests-per-client", "2", "--warmup", "0", "--json");

        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<JsonNode> levels = jsonLines();
        assertThat(levels).hasSize(2);
        for (int i = 0; i < 2; i++) {
            JsonNode level = levels.get(i);
            int n = i + 1;
            assertThat(level.get("concurrency").asInt()).isEqualTo(n);
            assertThat(level.get("requests").asInt()).isEqualTo(2 * n);
            assertThat(level.get("errors").asInt()).isZero();
            // From the usage chunk: 5 tokens a request.
            assertThat(level.get("tokens").asInt()).isEqualTo(10 * n);
            for (String field : List.of("aggregate_tokens_per_s", "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms",
                    "itl_p99_ms", "duration_s", "per_request_tokens_per_s")) {
                assertThat(level.get(field).isNumber()).as(field).isTrue();
                assertThat(level.get(field).asDouble()).as(field).isPositive();
            }
            assertThat(level.get("model").asText()).isEqualTo("words");
            assertThat(level.get("endpoint").asText()).isEqualTo("chat");
        }
    }

    @Test
    void loadsTheCompletionsEndpointAndFindsTheModelItself() throws Exception {
        int exit = run("--url", url() + "/", "--endpoint", "completions", "--concurrency", "2", "--max-tokens", "3",
                "--requests-per-client", "1", "--json");

        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode level = jsonLines().getFirst();
        assertThat(level.get("endpoint").asText()).isEqualTo("completions");
        assertThat(level.get("model").asText()).isEqualTo("words");
        assertThat(level.get("requests").asInt()).isEqualTo(2);
        assertThat(level.get("tokens").asInt()).isEqualTo(6);
    }

    @Test
    void printsATableByDefault() {
        int exit = run("--url", url(), "--concurrency", "1,2", "--max-tokens", "2", "--requests-per-client", "1");

        assertThat(exit).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).startsWith("bench-serve: words at " + url() + ", chat, max_tokens 2");
        assertThat(lines.get(1)).contains("concurrency", "tokens/s", "TTFT p50", "ITL p99");
        assertThat(lines.get(2)).matches(" +1 +1 +0 +2 .*ms.*");
        assertThat(lines.get(3)).matches(" +2 +2 +0 +4 .*ms.*");
    }

    @Test
    void countsFailedRequestsAsErrors() throws Exception {
        int exit = run("--url", url(), "--model", "no-such-model", "--concurrency", "2", "--max-tokens", "2",
                "--requests-per-client", "1", "--warmup", "0", "--json");

        assertThat(exit).isEqualTo(1);
        JsonNode level = jsonLines().getFirst();
        assertThat(level.get("errors").asInt()).isEqualTo(2);
        assertThat(level.get("tokens").asInt()).isZero();
        assertThat(level.get("ttft_p50_ms").isNull()).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("HTTP 404", "no-such-model");
    }

    @Test
    void refusesNonsenseSettings() {
        assertThat(run("--url", url(), "--concurrency", "0")).isEqualTo(2);
    }

    @Test
    void servesARealModelInProcess() throws Exception {
        Path model = Fixtures.require("models/stories260K.gguf");

        int exit = run("--serve-model", model.toString(), "--offline", "--threads", "1", "--concurrency", "1,2",
                "--max-tokens", "4", "--requests-per-client", "1", "--endpoint", "completions", "--json");

        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<JsonNode> levels = jsonLines();
        assertThat(levels).extracting(l -> l.get("concurrency").asInt()).containsExactly(1, 2);
        assertThat(levels).allSatisfy(l -> {
            assertThat(l.get("errors").asInt()).isZero();
            assertThat(l.get("tokens").asInt()).isEqualTo(4 * l.get("concurrency").asInt());
        });
    }
}
