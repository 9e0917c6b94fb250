package dev.inferd.server.e2e;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.ThinkingConfigAdaptive;
import com.anthropic.models.messages.ThinkingConfigDisabled;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.model.synthetic.TinyThinkingChatModel;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Anthropic's {@code thinking} over real HTTP with the official Java SDK, on a tiny random-weight model whose
 * template thinks in Qwen3's manner (its generation prompt opens {@code <think>} unless {@code enable_thinking}
 * is false). Decoding is greedy, so a run with a budget and one without agree token for token up to the budget:
 * the budgeted thinking is exactly the first {@code budget_tokens} of the model's own, then the engine closes it
 * and the answer follows within {@code max_tokens}.
 */
class ThinkingBudgetEndToEndTest {
    private static final String MODEL = "tiny-thinking";
    /** The same model with a template that has no {@code enable_thinking} switch: its prompt always opens thinking. */
    private static final String ALWAYS = "tiny-always-thinking";
    private static final int BUDGET = 1024;

    @TempDir
    static Path dir;
    private static InferdServer server;
    private static AnthropicClient client;

    @BeforeAll
    static void start() throws IOException {
        Path file = TinyThinkingChatModel.write(dir.resolve("tiny-thinking.gguf"));
        Path always = TinyThinkingChatModel.write(dir.resolve("tiny-always-thinking.gguf"),
                TinyThinkingChatModel.ALWAYS_THINKING_TEMPLATE);
        Map<String, TextGenerator> models = Map.of(
                MODEL, LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)),
                ALWAYS, LocalTextGenerator.open(always, new LocalTextGenerator.Options(ALWAYS, null, 0)));
        server = InferdServer.start("127.0.0.1", 0, models);
        client = AnthropicOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port()).apiKey("sk-anything")
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(120)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    /** Temperature 0, which this SDK version no longer has a setter for, sent as Anthropic's field all the same. */
    private static MessageCreateParams.Builder greedy(long maxTokens) {
        return greedy(MODEL, maxTokens);
    }

    private static MessageCreateParams.Builder greedy(String model, long maxTokens) {
        return MessageCreateParams.builder().model(model).maxTokens(maxTokens)
                .putAdditionalBodyProperty("temperature", JsonValue.from(0))
                .addUserMessage("Think it over, then answer: what is 2+2?");
    }

    private static Message streamed(MessageCreateParams params) {
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        return accumulator.message();
    }

    private static String thinking(Message message) {
        return message.content().getFirst().thinking().orElseThrow(() -> new AssertionError("no thinking: " + message))
                .thinking().strip();
    }

    /** Some 3,500 generated tokens: seconds on a quiet machine, but more under load. */
    @Test
    @Tag("slow")
    void theThinkingStopsAtItsBudgetAndTheAnswerFollows() {
        // The model's own thinking, cut by a cap of the budget's size: it does not close by itself that early.
        Message unbounded = client.messages().create(greedy(BUDGET).thinking(ThinkingConfigAdaptive.builder().build()).build());
        assertThat(unbounded.stopReason()).contains(StopReason.MAX_TOKENS);
        assertThat(unbounded.content()).as("all thinking").hasSize(1);
        String firstBudgetTokens = thinking(unbounded);

        long maxTokens = BUDGET + 200;
        MessageCreateParams budgeted = greedy(maxTokens).enabledThinking(BUDGET).build();
        for (Message message : List.of(client.messages().create(budgeted), streamed(budgeted))) {
            assertThat(thinking(message)).isEqualTo(firstBudgetTokens);
            // the budget's tokens, the closing tag, then an answer within what max_tokens leaves
            assertThat(message.usage().outputTokens()).isGreaterThan(BUDGET + 1).isLessThanOrEqualTo(maxTokens);
            List<ContentBlock> answer = message.content().subList(1, message.content().size());
            assertThat(answer).as("an answer after the thinking").isNotEmpty();
            assertThat(answer.getFirst().text()).isPresent();
        }
    }

    @Test
    void disabledThinkingGivesNoThinkingBlock() {
        for (var params : List.of(greedy(40).thinking(ThinkingConfigDisabled.builder().build()).build(), greedy(40).build())) {
            Message message = client.messages().create(params);
            assertThat(message.content()).noneMatch(block -> block.thinking().isPresent());
            assertThat(message.content().getFirst().text()).isPresent();
        }
    }

    /**
     * A template with no switch opens the thinking block whatever it is told: with thinking {@code disabled} the
     * engine closes the block at once (a budget of nothing), so the reply has no thinking, and the answer follows.
     */
    @Test
    void disabledThinkingIsClosedAtOnceWhereTheTemplateHasNoSwitch() {
        Message thinks = client.messages().create(greedy(ALWAYS, 40).thinking(ThinkingConfigAdaptive.builder().build()).build());
        assertThat(thinking(thinks)).isNotEmpty();
        for (var params : List.of(greedy(ALWAYS, 40).thinking(ThinkingConfigDisabled.builder().build()).build(),
                greedy(ALWAYS, 40).build())) {
            Message message = client.messages().create(params);
            assertThat(message.content()).as(message.toString())
                    .noneMatch(block -> block.thinking().map(t -> !t.thinking().isBlank()).orElse(false));
            assertThat(message.content()).anyMatch(block -> block.text().isPresent());
        }
    }
}
