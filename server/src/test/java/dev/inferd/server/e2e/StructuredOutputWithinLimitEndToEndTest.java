package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.BadRequestException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionNamedToolChoice;
import com.openai.models.chat.completions.ChatCompletionToolChoiceOption;
import com.openai.models.completions.CompletionCreateParams;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Structured output under small token limits, through the whole stack with the official OpenAI Java
 * SDK against stories260K (a model that knows nothing of JSON): the limit cuts nothing open. The
 * output is steered onto its shortest completion as the tokens run out, so content parses and
 * validates and a forced call keeps complete arguments, with {@code finish_reason: "length"} when
 * the limit ended it; a limit below the shortest complete output is a 400 before anything runs.
 */
class StructuredOutputWithinLimitEndToEndTest {
    private static final String MODEL = "stories-260k";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    private static final String ORDER_SCHEMA = """
            {"type":"object","properties":{
              "customer":{"type":"string","minLength":2,"maxLength":40},
              "items":{"type":"array","minItems":1,"items":{"type":"object","properties":{
                 "sku":{"type":"string","pattern":"^[A-Z]{3}-\\\\d{2}$"},
                 "quantity":{"type":"integer","minimum":1,"maximum":9}},"required":["sku","quantity"],
                 "additionalProperties":false}},
              "express":{"type":"boolean"},
              "size":{"enum":["medium","xl","small"]},
              "note":{"type":"string"}},
             "required":["customer","items","express","size"],"additionalProperties":false}""";
    private static final String WEATHER_PARAMETERS = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":1},
              "unit":{"enum":["celsius","fahrenheit"]},
              "days":{"type":"integer","minimum":1,"maximum":14}},
             "required":["city","unit","days"],"additionalProperties":false}""";

    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        Path file = Fixtures.storiesModel();
        Map<String, TextGenerator> models = Map.of(MODEL,
                LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)));
        server = InferdServer.start("127.0.0.1", 0, models);
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey("sk-anything")
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    static List<String> complaints(String schemaJson, String json) {
        return SCHEMAS.getSchema(schemaJson, InputFormat.JSON).validate(json, InputFormat.JSON).stream()
                .map(Object::toString).toList();
    }

    static Map<String, JsonValue> schemaMap(String json) throws IOException {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        JSON.readTree(json).properties().forEach(e -> out.put(e.getKey(), JsonValue.from(JSON.convertValue(e.getValue(), Object.class))));
        return out;
    }

    private static ResponseFormatJsonSchema orderFormat() throws IOException {
        return ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
                .name("order").strict(true).schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                        .additionalProperties(schemaMap(ORDER_SCHEMA)).build()).build()).build();
    }

    private static ChatCompletionFunctionTool weatherTool() throws IOException {
        return ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name("get_weather")
                .parameters(FunctionParameters.builder().additionalProperties(schemaMap(WEATHER_PARAMETERS)).build())
                .build()).build();
    }

    /** The smallest limit the server accepts for this request: the token count its 400 names. */
    private static int leastLimit(ChatCompletionCreateParams.Builder request) {
        try {
            client.chat().completions().create(request.maxCompletionTokens(1).build());
        } catch (BadRequestException e) {
            String message = e.getMessage();
            var m = java.util.regex.Pattern.compile("needs at least (\\d+) tokens").matcher(message);
            assertThat(m.find()).as(message).isTrue();
            return Integer.parseInt(m.group(1));
        }
        throw new AssertionError("a limit of one token was accepted");
    }

    @Test
    void jsonSchemaOutputCutByTheLimitParsesAndValidates() throws IOException {
        var request = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("An order, please.")
                .responseFormat(orderFormat()).temperature(1.0);
        int least = leastLimit(request);
        int cutByLength = 0;
        for (int extra : new int[] {0, 1, 3, 8, 20}) {
            for (long seed = 0; seed < 3; seed++) {
                ChatCompletion c = client.chat().completions().create(request.seed(seed).maxCompletionTokens(least + extra).build());
                var choice = c.choices().getFirst();
                String content = choice.message().content().orElseThrow();
                String where = "limit " + (least + extra) + ", seed " + seed + ": " + content;
                assertThat(complaints(ORDER_SCHEMA, content)).as(where).isEmpty();
                assertThat(c.usage().orElseThrow().completionTokens()).as(where).isLessThanOrEqualTo(least + extra);
                if (ChatCompletion.Choice.FinishReason.LENGTH.equals(choice.finishReason())) cutByLength++;
            }
        }
        assertThat(cutByLength).as("outputs the limit ended").isPositive();
    }

    /** This model rarely closes an object of its own: the limit ends these, and what it ends parses. */
    @Test
    void jsonObjectsEndedByTheLimitSayLengthAndParse() throws IOException {
        int cutByLength = 0;
        var seen = new java.util.ArrayList<String>();
        for (long seed = 0; seed < 6; seed++) {
            ChatCompletion c = client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                    .addUserMessage("Say something.").responseFormat(com.openai.models.ResponseFormatJsonObject.builder().build())
                    .seed(seed).temperature(1.0).maxCompletionTokens(12 + seed).build());
            var choice = c.choices().getFirst();
            String content = choice.message().content().orElseThrow();
            assertThat(JSON.readTree(content).isObject()).as(content).isTrue();
            seen.add(choice.finishReason() + " " + c.usage().orElseThrow().completionTokens() + " " + content);
            if (ChatCompletion.Choice.FinishReason.LENGTH.equals(choice.finishReason())) cutByLength++;
        }
        assertThat(cutByLength).as("outputs the limit ended: %s", seen).isPositive();
    }

    @Test
    void theLayoutIsCompact() throws IOException {
        var request = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("An order, please.")
                .responseFormat(orderFormat()).seed(3L);
        int least = leastLimit(request);
        String content = client.chat().completions().create(request.maxCompletionTokens(least).build())
                .choices().getFirst().message().content().orElseThrow();
        assertThat(content).as(content).startsWith("{\"customer\": \"").contains("\", \"items\": [{\"sku\": \"")
                .doesNotContain("\n").doesNotContain("  ");
    }

    @Test
    void aRequestMayAskForTheFreeLayout() throws IOException {
        var request = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("An order, please.")
                .responseFormat(orderFormat()).temperature(1.0).maxCompletionTokens(200)
                .putAdditionalBodyProperty("json_layout", JsonValue.from("free"));
        for (long seed = 0; seed < 3; seed++) {
            var choice = client.chat().completions().create(request.seed(seed).build()).choices().getFirst();
            String content = choice.message().content().orElseThrow();
            assertThat(complaints(ORDER_SCHEMA, content)).as(content).isEmpty();
        }
        assertThatThrownBy(() -> client.chat().completions().create(request
                .putAdditionalBodyProperty("json_layout", JsonValue.from("pretty")).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.param()).hasValue("json_layout"));
    }

    @Test
    void aForcedCallCutByTheLimitKeepsCompleteArguments() throws IOException {
        var named = ChatCompletionToolChoiceOption.ofNamedToolChoice(ChatCompletionNamedToolChoice.builder()
                .function(ChatCompletionNamedToolChoice.Function.builder().name("get_weather").build()).build());
        var required = ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.REQUIRED);
        for (var choiceOption : List.of(named, required)) {
            var request = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("Weather in Paris?")
                    .addTool(weatherTool()).toolChoice(choiceOption).temperature(1.0);
            int least = leastLimit(request);
            for (int extra : new int[] {0, 2, 6}) {
                for (long seed = 0; seed < 2; seed++) {
                    ChatCompletion c = client.chat().completions().create(request.seed(seed).maxCompletionTokens(least + extra).build());
                    var choice = c.choices().getFirst();
                    String where = "limit " + (least + extra) + ", seed " + seed + ": " + choice;
                    var calls = choice.message().toolCalls().orElseThrow();
                    assertThat(calls).as(where).hasSize(1);
                    var function = calls.getFirst().asFunction().function();
                    assertThat(function.name()).isEqualTo("get_weather");
                    assertThat(complaints(WEATHER_PARAMETERS, function.arguments())).as(where).isEmpty();
                    assertThat(choice.finishReason()).as(where).isIn(ChatCompletion.Choice.FinishReason.LENGTH,
                            ChatCompletion.Choice.FinishReason.TOOL_CALLS);
                }
            }
        }
    }

    @Test
    void aLimitBelowTheShortestCompleteOutputIsRefusedUpFront() throws IOException {
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage("An order, please.").responseFormat(orderFormat()).maxCompletionTokens(5).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.param()).hasValue("max_tokens");
                    assertThat(e.type()).hasValue("invalid_request_error");
                    assertThat(e.getMessage()).contains("needs at least").contains("tokens to be complete");
                });
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage("Weather?").addTool(weatherTool())
                .toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.REQUIRED))
                .maxCompletionTokens(4).build()))
                .isInstanceOf(BadRequestException.class).hasMessageContaining("needs at least");
    }

    @Test
    void completionsFollowTheSameRule() throws IOException {
        var format = Map.of("type", "json_schema", "json_schema", Map.of("name", "order",
                "schema", JSON.readValue(ORDER_SCHEMA, Object.class)));
        var base = CompletionCreateParams.builder().model(MODEL).prompt("Once upon a time")
                .putAdditionalBodyProperty("response_format", JsonValue.from(format)).temperature(1.0);
        int least;
        try {
            client.completions().create(base.maxTokens(2L).build());
            throw new AssertionError("a limit of two tokens was accepted");
        } catch (BadRequestException e) {
            var m = java.util.regex.Pattern.compile("needs at least (\\d+) tokens").matcher(e.getMessage());
            assertThat(m.find()).as(e.getMessage()).isTrue();
            least = Integer.parseInt(m.group(1));
        }
        for (long seed = 0; seed < 3; seed++) {
            var completion = client.completions().create(base.seed(seed).maxTokens((long) least + seed).build());
            String text = completion.choices().getFirst().text();
            assertThat(complaints(ORDER_SCHEMA, text)).as(text).isEmpty();
        }
    }
}
