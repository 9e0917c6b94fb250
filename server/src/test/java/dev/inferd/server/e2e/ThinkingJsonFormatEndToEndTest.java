package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.models.ReasoningEffort;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.Reasoning;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseFormatTextJsonSchemaConfig;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseTextConfig;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.model.synthetic.TinyThinkingChatModel;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JSON {@code response_format} (and the Responses API's {@code text.format}) on a model whose template thinks,
 * with the OpenAI Java SDK: the thinking is free and goes to {@code reasoning_content}, the JSON holds the answer
 * after {@code </think>} and lands in {@code content}; with thinking off the JSON starts at once. Two templates
 * whose generation prompt opens {@code <think>}: the tiny model's own, in Qwen3's manner (closed in the prompt
 * under {@code enable_thinking: false}), and DeepSeek-R1-Distill's from the fixtures (no switch: the engine closes
 * the block at once). Random weights never close the thinking on their own, so the block is closed at the last
 * step that leaves the JSON room to complete within {@code max_completion_tokens}.
 */
class ThinkingJsonFormatEndToEndTest {
    private static final String QWEN3_LIKE = "tiny-thinking";
    private static final String R1 = "tiny-r1";
    private static final String R1_TEMPLATE = "chat-templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja";
    private static final String SCHEMA = """
            {"type":"object","properties":{"answer":{"type":"integer"},"unit":{"enum":["apples","pears"]}},
             "required":["answer","unit"],"additionalProperties":false}""";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LIMIT = 48;

    @TempDir
    static Path dir;
    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        Map<String, TextGenerator> models = new HashMap<>();
        Path qwen3 = TinyThinkingChatModel.write(dir.resolve("tiny-thinking.gguf"));
        models.put(QWEN3_LIKE, LocalTextGenerator.open(qwen3, new LocalTextGenerator.Options(QWEN3_LIKE, null, 0)));
        Path r1Template = Fixtures.dir().resolve(R1_TEMPLATE);
        if (Files.isRegularFile(r1Template)) { // the tests on it skip without the fixtures
            Path r1 = TinyThinkingChatModel.write(dir.resolve("tiny-r1.gguf"), Files.readString(r1Template));
            models.put(R1, LocalTextGenerator.open(r1, new LocalTextGenerator.Options(R1, null, 0)));
        }
        server = InferdServer.start("127.0.0.1", 0, models);
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey("sk-anything")
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static String model(String name) {
        if (name.equals(R1)) Fixtures.require(R1_TEMPLATE);
        return name;
    }

    private static ChatCompletionCreateParams.Builder chat(String model) {
        return ChatCompletionCreateParams.builder().model(model(model)).addUserMessage("How many apples? Answer in JSON.")
                .temperature(0.0).maxCompletionTokens(LIMIT);
    }

    private static ResponseFormatJsonSchema schemaFormat() throws IOException {
        return ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder().name("count")
                .schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                        .additionalProperties(StructuredOutputWithinLimitEndToEndTest.schemaMap(SCHEMA)).build())
                .strict(true).build()).build();
    }

    private static String reasoning(ChatCompletion.Choice choice) {
        JsonValue value = choice.message()._additionalProperties().get("reasoning_content");
        return value == null || value.isNull() ? "" : value.asStringOrThrow();
    }

    private static JsonNode content(ChatCompletion.Choice choice) throws IOException {
        return JSON.readTree(choice.message().content().orElseThrow(() -> new AssertionError("no content: " + choice)));
    }

    /** The choice's content validates against {@link #SCHEMA}, and it has reasoning exactly when {@code thinks}. */
    private static void assertAnswer(ChatCompletion.Choice choice, boolean thinks) {
        assertThat(reasoning(choice).isBlank()).as(choice.toString()).isEqualTo(!thinks);
        String content = choice.message().content().orElseThrow(() -> new AssertionError("no content: " + choice));
        assertThat(StructuredOutputWithinLimitEndToEndTest.complaints(SCHEMA, content)).as(content).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {QWEN3_LIKE, R1})
    void jsonObjectFollowsTheThinking(String model) throws IOException {
        var choice = client.chat().completions().create(chat(model)
                .responseFormat(ResponseFormatJsonObject.builder().build()).build()).choices().getFirst();
        assertThat(reasoning(choice)).as(choice.toString()).isNotBlank();
        assertThat(content(choice).isObject()).as(choice.toString()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {QWEN3_LIKE, R1})
    void jsonSchemaFollowsTheThinking(String model) throws IOException {
        assertAnswer(client.chat().completions().create(chat(model).responseFormat(schemaFormat()).build())
                .choices().getFirst(), true);
    }

    @ParameterizedTest
    @ValueSource(strings = {QWEN3_LIKE, R1})
    void withThinkingOffTheJsonStartsAtOnce(String model) throws IOException {
        var off = chat(model).responseFormat(schemaFormat())
                .putAdditionalBodyProperty("chat_template_kwargs", JsonValue.from(Map.of("enable_thinking", false)));
        assertAnswer(client.chat().completions().create(off.build()).choices().getFirst(), false);
    }

    /** Where the client keeps the thinking in the content, the JSON is the whole content, from the first token. */
    @ParameterizedTest
    @ValueSource(strings = {QWEN3_LIKE, R1})
    void withTheThinkingKeptInTheContentTheJsonIsAllOfIt(String model) throws IOException {
        var choice = client.chat().completions().create(chat(model).responseFormat(ResponseFormatJsonObject.builder().build())
                .putAdditionalBodyProperty("separate_reasoning", JsonValue.from(false)).build()).choices().getFirst();
        assertThat(content(choice).isObject()).as(choice.toString()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {QWEN3_LIKE, R1})
    void responsesTextFormatFollowsTheThinking(String model) throws IOException {
        for (boolean thinks : List.of(true, false)) {
            var params = ResponseCreateParams.builder().model(model(model)).input("How many apples? Answer in JSON.")
                    .temperature(0.0).maxOutputTokens(LIMIT)
                    .text(ResponseTextConfig.builder().format(ResponseFormatTextJsonSchemaConfig.builder().name("count")
                            .schema(ResponseFormatTextJsonSchemaConfig.Schema.builder()
                                    .additionalProperties(StructuredOutputWithinLimitEndToEndTest.schemaMap(SCHEMA)).build())
                            .strict(true).build()).build());
            if (!thinks) params.reasoning(Reasoning.builder().effort(ReasoningEffort.NONE).build());
            Response response = client.responses().create(params.build());
            StringBuilder text = new StringBuilder();
            StringBuilder thinking = new StringBuilder();
            for (ResponseOutputItem item : response.output()) {
                item.message().ifPresent(m -> m.content().forEach(c -> c.outputText().ifPresent(t -> text.append(t.text()))));
                item.reasoning().ifPresent(r -> r.content().ifPresent(parts -> parts.forEach(p -> thinking.append(p.text()))));
            }
            String where = "thinks " + thinks + ": " + response;
            assertThat(StructuredOutputWithinLimitEndToEndTest.complaints(SCHEMA, text.toString())).as(where).isEmpty();
            assertThat(thinking.toString().isBlank()).as(where).isEqualTo(!thinks);
        }
    }
}
