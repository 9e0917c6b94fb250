package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.BadRequestException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionAssistantMessageParam;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionMessageToolCall;
import com.openai.models.chat.completions.ChatCompletionNamedToolChoice;
import com.openai.models.chat.completions.ChatCompletionToolChoiceOption;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import com.openai.models.chat.completions.StructuredChatCompletion;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JSON mode, structured output and tool calls through the whole stack, driven by the official
 * OpenAI Java SDK against stories260K: a model that knows nothing of JSON, so every valid output
 * here is the constraint's doing.
 */
class StructuredOutputEndToEndTest {
    private static final String MODEL = "stories-260k";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    private static final String PERSON_SCHEMA = """
            {"type":"object","properties":{
              "name":{"type":"string","minLength":1,"maxLength":12},
              "age":{"type":"integer","minimum":0,"maximum":120},
              "pet":{"enum":["cat","dog","fish"]},
              "tags":{"type":"array","items":{"type":"string","maxLength":6},"maxItems":3}},
             "required":["name","age","pet"],"additionalProperties":false}""";
    private static final String WEATHER_PARAMETERS = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":1,"maxLength":10},
              "unit":{"enum":["celsius","fahrenheit"]}},
             "required":["city","unit"],"additionalProperties":false}""";

    private static InferdServer server;
    private static OpenAIClient client;
    private static String baseUrl;

    @BeforeAll
    static void start() throws IOException {
        Path file = Fixtures.storiesModel();
        Map<String, TextGenerator> models = Map.of(MODEL,
                LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)));
        server = InferdServer.start("127.0.0.1", 0, models);
        baseUrl = "http://127.0.0.1:" + server.port() + "/v1";
        client = OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey("sk-anything").maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static List<String> complaints(String schemaJson, String json) {
        Schema schema = SCHEMAS.getSchema(schemaJson, InputFormat.JSON);
        return schema.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    private static Map<String, JsonValue> schemaMap(String json) throws IOException {
        Map<String, JsonValue> out = new java.util.LinkedHashMap<>();
        JSON.readTree(json).properties().forEach(e -> out.put(e.getKey(), JsonValue.from(JSON.convertValue(e.getValue(), Object.class))));
        return out;
    }

    private static ChatCompletionCreateParams.Builder chat(String user) {
        return ChatCompletionCreateParams.builder().model(MODEL).addUserMessage(user).maxCompletionTokens(400);
    }

    private static ChatCompletionFunctionTool weatherTool() throws IOException {
        return ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name("get_weather")
                .description("The weather in a city").parameters(FunctionParameters.builder()
                        .additionalProperties(schemaMap(WEATHER_PARAMETERS)).build()).build()).build();
    }

    private static ChatCompletionToolChoiceOption named(String name) {
        return ChatCompletionToolChoiceOption.ofNamedToolChoice(ChatCompletionNamedToolChoice.builder()
                .function(ChatCompletionNamedToolChoice.Function.builder().name(name).build()).build());
    }

    @Test
    void jsonSchemaOutputValidates() throws IOException {
        personsValidate(3);
    }

    /** The check: 20 seeds at temperature 1. */
    @Test
    @Tag("slow")
    void jsonSchemaOutputValidatesForTwentySeeds() throws IOException {
        personsValidate(20);
    }

    private static void personsValidate(int seeds) throws IOException {
        var format = ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
                .name("person").strict(true).schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                        .additionalProperties(schemaMap(PERSON_SCHEMA)).build()).build()).build();
        for (long seed = 0; seed < seeds; seed++) {
            ChatCompletion c = client.chat().completions().create(chat("Tell me about a person.")
                    .responseFormat(format).seed(seed).temperature(1.0).build());
            var choice = c.choices().getFirst();
            assertThat(choice.finishReason()).as("seed %d: %s %s", seed, choice.message().content(), c.usage()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
            String content = choice.message().content().orElseThrow();
            assertThat(complaints(PERSON_SCHEMA, content)).as("seed %d: %s", seed, content).isEmpty();
        }
    }

    /**
     * Any object may nest without end, and this model rarely closes one: an output the token limit
     * cuts is steered to close what it opened, so every output parses as an object.
     */
    @Test
    void jsonObjectOutputParses() throws IOException {
        for (long seed = 0; seed < 3; seed++) {
            ChatCompletion c = client.chat().completions().create(chat("Say something.")
                    .responseFormat(ResponseFormatJsonObject.builder().build()).seed(seed).maxCompletionTokens(80).build());
            var choice = c.choices().getFirst();
            String content = choice.message().content().orElseThrow();
            assertThat(JSON.readTree(content).isObject()).as(content).isTrue();
        }
    }

    /** A Java class as the SDK's structured-output helper turns it into a strict schema. */
    public static class Pet {
        public String name;
        public int legs;
    }

    @Test
    void structuredOutputFromAJavaClass() {
        StructuredChatCompletion<Pet> c = client.chat().completions().create(ChatCompletionCreateParams.builder()
                .model(MODEL).addUserMessage("A pet, please.").maxCompletionTokens(300).seed(1L)
                .responseFormat(Pet.class).build());
        var choice = c.choices().getFirst();
        assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
        Pet pet = choice.message().content().orElseThrow();
        assertThat(pet.name).isNotNull();
    }

    @Test
    void namedToolChoiceReturnsACallWhoseArgumentsValidate() throws IOException {
        for (long seed = 0; seed < 5; seed++) {
            ChatCompletion c = client.chat().completions().create(chat("Weather in Paris?").addTool(weatherTool())
                    .toolChoice(named("get_weather")).seed(seed).build());
            var choice = c.choices().getFirst();
            assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.TOOL_CALLS);
            assertThat(choice.message().content()).isEmpty();
            var call = choice.message().toolCalls().orElseThrow().getFirst().asFunction();
            assertThat(call.id()).startsWith("call_");
            assertThat(call.function().name()).isEqualTo("get_weather");
            assertThat(complaints(WEATHER_PARAMETERS, call.function().arguments())).isEmpty();
            assertThat(c.usage().orElseThrow().completionTokens()).isPositive();
        }
    }

    @Test
    void streamedCallThroughTheAccumulatorMatchesTheSchema() throws IOException {
        var accumulator = ChatCompletionAccumulator.create();
        try (var stream = client.chat().completions().createStreaming(chat("Weather?").addTool(weatherTool())
                .toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.REQUIRED))
                .seed(7L).build())) {
            stream.stream().forEach(accumulator::accumulate);
        }
        var choice = accumulator.chatCompletion().choices().getFirst();
        assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.TOOL_CALLS);
        var call = choice.message().toolCalls().orElseThrow().getFirst().asFunction();
        assertThat(call.function().name()).isEqualTo("get_weather");
        assertThat(complaints(WEATHER_PARAMETERS, call.function().arguments())).isEmpty();
    }

    @Test
    void requiredWithTwoToolsCallsOneOfThemValidly() throws IOException {
        String timeParameters = "{\"type\":\"object\",\"properties\":{\"zone\":{\"enum\":[\"UTC\",\"CET\"]}},"
                + "\"required\":[\"zone\"],\"additionalProperties\":false}";
        var timeTool = ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name("get_time")
                .parameters(FunctionParameters.builder().additionalProperties(schemaMap(timeParameters)).build()).build()).build();
        for (long seed = 0; seed < 4; seed++) {
            ChatCompletion c = client.chat().completions().create(chat("Time or weather?").addTool(weatherTool())
                    .addTool(timeTool).toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.REQUIRED))
                    .parallelToolCalls(false).seed(seed).build());
            var choice = c.choices().getFirst();
            assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.TOOL_CALLS);
            var calls = choice.message().toolCalls().orElseThrow();
            assertThat(calls).hasSize(1);
            var function = calls.getFirst().asFunction().function();
            String schema = function.name().equals("get_time") ? timeParameters : WEATHER_PARAMETERS;
            assertThat(function.name()).isIn("get_time", "get_weather");
            assertThat(complaints(schema, function.arguments())).isEmpty();
        }
    }

    @Test
    void toolChoiceNoneGivesText() throws IOException {
        ChatCompletion c = client.chat().completions().create(chat("Once upon a time").addTool(weatherTool())
                .toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.NONE))
                .maxCompletionTokens(10).temperature(0.0).build());
        var choice = c.choices().getFirst();
        assertThat(choice.message().toolCalls().orElse(List.of())).isEmpty();
        assertThat(choice.message().content().orElseThrow()).isNotEmpty();
    }

    @Test
    void toolRoundTrip() throws IOException {
        ChatCompletion first = client.chat().completions().create(chat("Weather in Paris?").addTool(weatherTool())
                .toolChoice(named("get_weather")).seed(2L).build());
        ChatCompletionMessageToolCall call = first.choices().getFirst().message().toolCalls().orElseThrow().getFirst();
        ChatCompletion answer = client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage("Weather in Paris?")
                .addMessage(ChatCompletionAssistantMessageParam.builder().toolCalls(List.of(call)).build())
                .addMessage(ChatCompletionToolMessageParam.builder().toolCallId(call.asFunction().id())
                        .content("18C, cloudy").build())
                .addTool(weatherTool()).toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.NONE))
                .maxCompletionTokens(10).temperature(0.0).build());
        var choice = answer.choices().getFirst();
        assertThat(choice.message().content().orElseThrow()).isNotEmpty();
        assertThat(choice.finishReason()).isIn(ChatCompletion.Choice.FinishReason.STOP, ChatCompletion.Choice.FinishReason.LENGTH);
    }

    @Test
    void unsupportedSchemaKeywordIsA400NamingIt() throws IOException {
        String schema = "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"uniqueItems\":true}";
        var format = ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
                .name("numbers").schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
                        .additionalProperties(schemaMap(schema)).build()).build()).build();
        assertThatThrownBy(() -> client.chat().completions().create(chat("Numbers").responseFormat(format).build()))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("uniqueItems");
    }

    /** The extension: {@code response_format} on the legacy completions endpoint. */
    @Test
    void completionsTakeAJsonSchema() throws IOException {
        var params = com.openai.models.completions.CompletionCreateParams.builder().model(MODEL).prompt("Once")
                .maxTokens(400).seed(5L).putAdditionalBodyProperty("response_format", JsonValue.from(Map.of(
                        "type", "json_schema", "json_schema", Map.of("name", "person",
                                "schema", JSON.convertValue(JSON.readTree(PERSON_SCHEMA), Map.class))))).build();
        var choice = client.completions().create(params).choices().getFirst();
        assertThat(choice.finishReason()).isEqualTo(com.openai.models.completions.CompletionChoice.FinishReason.STOP);
        assertThat(complaints(PERSON_SCHEMA, choice.text())).as(choice.text()).isEmpty();
    }

    @Test
    void streamedCallFragmentsHaveOpenAisShape() throws Exception {
        String body = """
                {"model":"%s","stream":true,"seed":4,"max_completion_tokens":400,
                 "messages":[{"role":"user","content":"Weather?"}],
                 "tools":[{"type":"function","function":{"name":"get_weather","parameters":%s}}],
                 "tool_choice":{"type":"function","function":{"name":"get_weather"}}}""".formatted(MODEL, WEATHER_PARAMETERS);
        var http = HttpClient.newHttpClient();
        var response = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        List<JsonNode> chunks = new ArrayList<>();
        for (String line : response.body().split("\n")) {
            if (line.startsWith("data: ") && !line.equals("data: [DONE]")) chunks.add(JSON.readTree(line.substring(6)));
        }
        JsonNode first = chunks.getFirst().get("choices").get(0).get("delta");
        assertThat(first.get("role").asText()).isEqualTo("assistant");
        assertThat(first.get("content").isNull()).isTrue();
        List<JsonNode> fragments = new ArrayList<>();
        for (JsonNode c : chunks) {
            JsonNode delta = c.get("choices").get(0).get("delta");
            assertThat(delta.has("content") && !delta.get("content").isNull() && !delta.get("content").asText().isEmpty())
                    .as("no content besides the call: %s", c).isFalse();
            if (delta.has("tool_calls")) fragments.add(delta.get("tool_calls").get(0));
        }
        JsonNode opening = fragments.getFirst();
        assertThat(opening.get("index").asInt()).isZero();
        assertThat(opening.get("id").asText()).startsWith("call_");
        assertThat(opening.get("type").asText()).isEqualTo("function");
        assertThat(opening.get("function").get("name").asText()).isEqualTo("get_weather");
        assertThat(opening.get("function").get("arguments").asText()).isEmpty();
        StringBuilder arguments = new StringBuilder();
        for (JsonNode f : fragments.subList(1, fragments.size())) {
            assertThat(f.get("index").asInt()).isZero();
            assertThat(f.has("id") || f.has("type") || f.get("function").has("name")).as("later fragment %s", f).isFalse();
            arguments.append(f.get("function").get("arguments").asText());
        }
        assertThat(fragments.size()).as("arguments arrive in pieces").isGreaterThan(2);
        assertThat(complaints(WEATHER_PARAMETERS, arguments.toString())).isEmpty();
        JsonNode last = chunks.getLast().get("choices").get(0);
        assertThat(last.get("finish_reason").asText()).isEqualTo("tool_calls");
    }
}
