package dev.inferd.server.http;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.NotFoundException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.beta.AnthropicBeta;
import com.anthropic.models.beta.messages.BetaMessage;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolUseBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Anthropic's official Java SDK ({@code com.anthropic:anthropic-java}) against the Messages API over real HTTP,
 * with its response validation on: replies, streams accumulated by its {@code MessageAccumulator}, thinking,
 * tool calls, stop sequences, token counting and typed errors.
 */
class AnthropicJavaSdkTest {
    private static final String THINKER = "thinker";
    private static final String CALLER = "caller";
    private static final String THINKING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}{# replies may open <think> #}";

    private static TestServer server;
    private static AnthropicClient client;

    @BeforeAll
    static void start() {
        server = new TestServer();
        server.registry.ready(THINKER, new FakeTextGenerator(THINKER, 4096).template(THINKING_TEMPLATE)
                .text("<think>The user wants a greeting.</think> Hello there"));
        server.registry.ready(CALLER, new FakeTextGenerator(CALLER, 4096)
                .text("{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}"));
        client = AnthropicOkHttpClient.builder().baseUrl(server.base()).apiKey("sk-dummy").maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(30)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static MessageCreateParams.Builder params(String model) {
        return MessageCreateParams.builder().model(model).maxTokens(100).addUserMessage("Hi");
    }

    private static Message streamed(MessageCreateParams params) {
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        return accumulator.message();
    }

    @Test
    void aReplyAndItsStreamParseAlike() {
        MessageCreateParams params = params(TestServer.ODD_MODEL).system("Be brief.").build();
        for (Message message : List.of(client.messages().create(params), streamed(params))) {
            assertThat(message.id()).startsWith("msg_");
            assertThat(message.content().getFirst().text().orElseThrow().text()).isEqualTo(FakeTextGenerator.TEXT);
            assertThat(message.stopReason()).contains(StopReason.END_TURN);
            assertThat(message.usage().outputTokens()).isEqualTo(13);
        }
        long counted = client.messages().countTokens(MessageCountTokensParams.builder().model(TestServer.ODD_MODEL)
                .system("Be brief.").addUserMessage("Hi").build()).inputTokens();
        assertThat(counted).isEqualTo(client.messages().create(params).usage().inputTokens());
    }

    /** A final assistant message is continued: the prompt ends with it, and the reply holds only what follows. */
    @Test
    void aPrefillIsContinued() {
        MessageCreateParams params = params(TestServer.ODD_MODEL).addAssistantMessage("{").build();
        for (Message message : List.of(client.messages().create(params), streamed(params))) {
            assertThat(server.oddModel.lastRendered).isEqualTo("user: Hi\nassistant: {");
            assertThat(message.content()).hasSize(1);
            assertThat(message.content().getFirst().text().orElseThrow().text()).isEqualTo(FakeTextGenerator.TEXT);
        }
    }

    @Test
    void aStopSequenceIsReported() {
        Message message = client.messages().create(params(TestServer.ODD_MODEL).stopSequences(List.of("tiny")).build());
        assertThat(message.stopReason()).contains(StopReason.STOP_SEQUENCE);
        assertThat(message.stopSequence()).contains("tiny");
    }

    @Test
    void thinkingIsAThinkingBlock() {
        MessageCreateParams params = params(THINKER).maxTokens(2000).enabledThinking(1024).build();
        for (Message message : List.of(client.messages().create(params), streamed(params))) {
            ContentBlock first = message.content().getFirst();
            assertThat(first.thinking().orElseThrow().thinking()).isEqualTo("The user wants a greeting.");
            assertThat(first.thinking().orElseThrow().signature()).isNotEmpty();
            assertThat(message.content().get(1).text().orElseThrow().text()).isEqualTo("Hello there");
        }
    }

    /**
     * Under the interleaved-thinking beta, as at Anthropic, {@code budget_tokens} may exceed {@code max_tokens}
     * (sent by the SDK's beta API in its {@code anthropic-beta} header); without the beta that is a 400.
     */
    @Test
    void aBudgetAboveMaxTokensNeedsTheInterleavedThinkingBeta() {
        var beta = com.anthropic.models.beta.messages.MessageCreateParams.builder().model(THINKER).maxTokens(1000)
                .addUserMessage("Hi").enabledThinking(4096)
                .addBeta(AnthropicBeta.INTERLEAVED_THINKING_2025_05_14).build();
        BetaMessage reply = client.beta().messages().create(beta);
        assertThat(reply.content().getFirst().thinking().orElseThrow().thinking()).isEqualTo("The user wants a greeting.");
        assertThat(reply.content().get(1).text().orElseThrow().text()).isEqualTo("Hello there");

        assertThatThrownBy(() -> client.messages().create(params(THINKER).maxTokens(1000).enabledThinking(4096).build()))
                .isInstanceOf(BadRequestException.class).hasMessageContaining("budget_tokens");
    }

    @Test
    void aToolCallIsAToolUseBlock() {
        Tool weather = Tool.builder().name("get_weather").description("The weather in a city")
                .inputSchema(Tool.InputSchema.builder()
                        .properties(JsonValue.from(Map.of("city", Map.of("type", "string"))))
                        .required(List.of("city")).build())
                .build();
        MessageCreateParams params = params(CALLER).addTool(weather).build();
        for (Message message : List.of(client.messages().create(params), streamed(params))) {
            assertThat(message.stopReason()).contains(StopReason.TOOL_USE);
            ToolUseBlock call = message.content().getFirst().toolUse().orElseThrow();
            assertThat(call.id()).startsWith("toolu_");
            assertThat(call.name()).isEqualTo("get_weather");
            assertThat(call._input().convert(Map.class)).isEqualTo(Map.of("city", "Paris"));
        }
    }

    @Test
    void anUnknownModelIsTheSdksNotFoundException() {
        assertThatThrownBy(() -> client.messages().create(params("no-such-model").build()))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("no-such-model");
    }
}
