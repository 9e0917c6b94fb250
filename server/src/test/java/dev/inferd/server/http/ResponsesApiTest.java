package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.Reasoning;
import com.openai.models.ReasoningEffort;
import com.openai.models.responses.FunctionTool;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseFunctionToolCall;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseItem;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStatus;
import com.openai.models.responses.ResponseStreamEvent;
import com.openai.models.responses.inputitems.InputItemListParams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code /v1/responses} through the official OpenAI Java SDK (strict response validation on) and raw HTTP. */
class ResponsesApiTest {

    private static final String HERMES_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if tools %}{{ tools | tojson }}{% endif %}{# calls: <tool_call> #}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}";
    private static final String THINKING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}{# replies may open <think> #}";

    private static TestServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() {
        server = new TestServer();
        client = OpenAIOkHttpClient.builder().baseUrl(server.base() + "/v1").apiKey("sk-local").maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(20)).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @BeforeEach
    void plainModel() {
        server.model.template(null).text(FakeTextGenerator.TEXT);
    }

    private static ResponseCreateParams.Builder hello() {
        return ResponseCreateParams.builder().model(TestServer.MODEL).input("Tell me a story");
    }

    private static String type(ResponseStreamEvent event) {
        return com.openai.core.ObjectMappers.jsonMapper().valueToTree(event).get("type").asText();
    }

    private static String text(Response response) {
        StringBuilder out = new StringBuilder();
        for (ResponseOutputItem item : response.output()) {
            item.message().ifPresent(m -> m.content().forEach(c -> c.outputText().ifPresent(t -> out.append(t.text()))));
        }
        return out.toString();
    }

    @Test
    void createsAResponseWithTextAndUsage() {
        Response response = client.responses().create(hello().instructions("Be brief.").build());

        assertThat(response.id()).startsWith("resp_");
        assertThat(response.status()).contains(ResponseStatus.COMPLETED);
        assertThat(text(response)).isEqualTo(FakeTextGenerator.TEXT);
        var usage = response.usage().orElseThrow();
        assertThat(usage.outputTokens()).isEqualTo(FakeTextGenerator.words(FakeTextGenerator.TEXT).size());
        assertThat(usage.totalTokens()).isEqualTo(usage.inputTokens() + usage.outputTokens());
        assertThat(usage.inputTokensDetails().cachedTokens()).isZero();
        assertThat(usage.outputTokensDetails().reasoningTokens()).isZero();
        assertThat(server.model.lastMessages.getFirst().content()).isEqualTo("Be brief.");
    }

    @Test
    void streamedEventsAccumulateToTheResponse() {
        var accumulator = ResponseAccumulator.create();
        List<String> types = new ArrayList<>();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(hello().build())) {
            stream.stream().forEach(event -> {
                accumulator.accumulate(event);
                types.add(type(event));
            });
        }
        Response response = accumulator.response();
        assertThat(text(response)).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(types.subList(0, 5)).containsExactly("response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta");
        assertThat(types.subList(types.size() - 4, types.size())).containsExactly("response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed");
    }

    @Test
    void theStreamNamesEachEventAndNumbersThem() throws Exception {
        String body = server.post("/v1/responses",
                "{\"model\":\"fake-model\",\"input\":\"Hi\",\"stream\":true}").body();
        String[] frames = body.split("\n\n");
        int expected = 0;
        for (String frame : frames) {
            String[] lines = frame.split("\n");
            assertThat(lines[0]).startsWith("event: ");
            assertThat(lines[1]).startsWith("data: ");
            JsonNode data = TestServer.MAPPER.readTree(lines[1].substring(6));
            assertThat(data.get("type").asText()).isEqualTo(lines[0].substring(7));
            assertThat(data.get("sequence_number").asInt()).isEqualTo(expected++);
        }
        assertThat(body).doesNotContain("[DONE]");
    }

    @Test
    void aGenerationThatFailsMidStreamEndsWithErrorAndResponseFailed() throws Exception {
        server.model.failAfterTokens(3);
        try {
            String body = server.post("/v1/responses", "{\"model\":\"fake-model\",\"input\":\"Hi\",\"stream\":true}")
                    .body();
            List<String> events = body.lines().filter(l -> l.startsWith("event: ")).map(l -> l.substring(7)).toList();
            assertThat(events).contains("response.output_text.delta");
            assertThat(events.subList(events.size() - 2, events.size())).containsExactly("error", "response.failed");
            assertThat(body).contains("\"status\":\"failed\"");
        } finally {
            server.model.failAfterTokens(-1);
        }
    }

    @Test
    void keptResponsesCanBeRetrievedListedContinuedAndDeleted() {
        Response first = client.responses().create(hello().build());
        Response again = client.responses().retrieve(first.id());
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(text(again)).isEqualTo(FakeTextGenerator.TEXT);

        var items = client.responses().inputItems().list(first.id());
        assertThat(items.data()).hasSize(1);
        ResponseItem item = items.data().getFirst();
        assertThat(item.isResponseInputMessageItem()).isTrue();

        client.responses().create(hello().input("And then?").previousResponseId(first.id()).build());
        var turns = server.model.lastMessages;
        assertThat(turns).extracting(m -> m.role()).containsExactly("user", "assistant", "user");
        assertThat(turns.get(1).content()).isEqualTo(FakeTextGenerator.TEXT);

        client.responses().delete(first.id());
        assertThatThrownBy(() -> client.responses().retrieve(first.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> client.responses().create(hello().previousResponseId(first.id()).build()))
                .isInstanceOf(BadRequestException.class).hasMessageContaining("not found");
    }

    @Test
    void storeFalseKeepsNothing() {
        Response response = client.responses().create(hello().store(false).build());
        assertThatThrownBy(() -> client.responses().retrieve(response.id())).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aFunctionCallRoundTrip() {
        server.model.template(HERMES_TEMPLATE).text("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                + "{\"city\": \"Paris\"}}\n</tool_call>");
        FunctionTool weather = FunctionTool.builder().name("get_weather").strict(false)
                .parameters(FunctionTool.Parameters.builder().putAdditionalProperty("type", JsonValue.from("object"))
                        .putAdditionalProperty("properties", JsonValue.from(Map.of("city", Map.of("type", "string"))))
                        .build()).build();
        Response response = client.responses().create(hello().input("Weather in Paris?").addTool(weather).build());
        ResponseFunctionToolCall call = response.output().stream().flatMap(i -> i.functionCall().stream())
                .findFirst().orElseThrow();
        assertThat(call.name()).isEqualTo("get_weather");
        assertThat(call.arguments()).isEqualTo("{\"city\": \"Paris\"}");
        assertThat(call.callId()).startsWith("call_");

        server.model.text("It is sunny.");
        Response answer = client.responses().create(hello().addTool(weather).previousResponseId(response.id())
                .inputOfResponse(List.of(ResponseInputItem.ofFunctionCallOutput(ResponseInputItem.FunctionCallOutput
                        .builder().callId(call.callId()).output("{\"sky\":\"sunny\"}").build()))).build());
        assertThat(text(answer)).isEqualTo("It is sunny.");
    }

    @Test
    void namespaceAndCustomToolsAreFunctionsToTheModelAndTheirOwnItemsToTheClient() throws Exception {
        String tools = """
                "tools":[{"type":"namespace","name":"files","description":"File tools","tools":[
                  {"type":"function","name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]},
                 {"type":"custom","name":"apply_patch","description":"Applies a patch"},
                 {"type":"web_search"}]""";
        server.oddModel.template(HERMES_TEMPLATE).text("<tool_call>\n{\"name\": \"files__read\", \"arguments\": "
                + "{\"path\": \"a.txt\"}}\n</tool_call>");
        JsonNode first = TestServer.json(server.post("/v1/responses",
                "{\"model\":\"org/tiny-model:Q8_0\",\"input\":\"Read a.txt\"," + tools + "}"));
        JsonNode call = first.get("output").get(0);
        assertThat(call.get("type").asText()).isEqualTo("function_call");
        assertThat(call.get("namespace").asText()).isEqualTo("files");
        assertThat(call.get("name").asText()).isEqualTo("read");

        server.oddModel.text("<tool_call>\n{\"name\": \"apply_patch\", \"arguments\": {\"input\": \"*** Begin Patch\"}}"
                + "\n</tool_call>");
        JsonNode second = TestServer.json(server.post("/v1/responses", "{\"model\":\"org/tiny-model:Q8_0\",\"previous_response_id\":\""
                + first.get("id").asText() + "\",\"input\":[{\"type\":\"function_call_output\",\"call_id\":\""
                + call.get("call_id").asText() + "\",\"output\":\"hello\"}]," + tools + "}"));
        JsonNode custom = second.get("output").get(0);
        assertThat(custom.get("type").asText()).isEqualTo("custom_tool_call");
        assertThat(custom.get("name").asText()).isEqualTo("apply_patch");
        assertThat(custom.get("input").asText()).isEqualTo("*** Begin Patch");
    }

    @Test
    void streamedCallsHaveArgumentEvents() {
        server.model.template(HERMES_TEMPLATE).text("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                + "{\"city\": \"Paris\"}}\n</tool_call>");
        var accumulator = ResponseAccumulator.create();
        List<String> types = new ArrayList<>();
        var params = hello().addTool(FunctionTool.builder().name("get_weather").strict(false)
                .parameters(FunctionTool.Parameters.builder().putAdditionalProperty("type", JsonValue.from("object"))
                        .build()).build()).build();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(params)) {
            stream.stream().forEach(event -> {
                accumulator.accumulate(event);
                types.add(type(event));
            });
        }
        assertThat(types).contains("response.function_call_arguments.delta", "response.function_call_arguments.done");
        ResponseFunctionToolCall call = accumulator.response().output().getFirst().functionCall().orElseThrow();
        assertThat(call.arguments()).isEqualTo("{\"city\": \"Paris\"}");
    }

    @Test
    void thinkingIsAReasoningItem() {
        server.model.template(THINKING_TEMPLATE).text("<think>Let me see.</think> Hello there");
        Response response = client.responses().create(hello()
                .reasoning(Reasoning.builder().effort(ReasoningEffort.MEDIUM).summary(Reasoning.Summary.AUTO).build())
                .build());
        var reasoning = response.output().getFirst().reasoning().orElseThrow();
        assertThat(reasoning.content().orElseThrow().getFirst().text()).isEqualTo("Let me see.");
        assertThat(reasoning.summary().getFirst().text()).isEqualTo("Let me see.");
        assertThat(text(response)).isEqualTo("Hello there");
        assertThat(response.usage().orElseThrow().outputTokensDetails().reasoningTokens()).isPositive();
    }

    @Test
    void reasoningCallAndTextStreamsFollowThePublishedSchemas() throws Exception {
        PublishedSchemas schemas = PublishedSchemas.load();
        server.model.template(THINKING_TEMPLATE + HERMES_TEMPLATE.substring(HERMES_TEMPLATE.indexOf("{% if tools")))
                .text("<think>Let me see.</think> Checking. <tool_call>\n{\"name\": \"get_weather\", "
                        + "\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
        String body = server.post("/v1/responses", """
                {"model":"fake-model","input":"Weather?","stream":true,"reasoning":{"effort":"low","summary":"auto"},
                 "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"},"strict":false}]}""")
                .body();
        List<String> types = new ArrayList<>();
        for (String frame : body.split("\n\n")) {
            String data = frame.substring(frame.indexOf("data: ") + 6);
            types.add(TestServer.MAPPER.readTree(data).get("type").asText());
            assertThat(schemas.checkEvent(data)).as(data).isEmpty();
        }
        assertThat(types).contains("response.reasoning_text.delta", "response.reasoning_summary_text.delta",
                "response.output_text.delta", "response.function_call_arguments.done", "response.completed");
    }

    @Test
    void aCapBeyondTheContextIsClampedAndEndsIncomplete() throws Exception {
        server.model.text("word ".repeat(100).strip());
        Response response = client.responses().create(hello().maxOutputTokens(100_000).build());
        assertThat(response.status()).contains(ResponseStatus.INCOMPLETE);
        assertThat(response.incompleteDetails().orElseThrow().reason())
                .contains(Response.IncompleteDetails.Reason.MAX_OUTPUT_TOKENS);
    }

    @Test
    void defaultClientFieldsAndHostedToolsAreAccepted() throws Exception {
        HttpResponse<String> r = server.post("/v1/responses", """
                {"model":"fake-model","input":[{"type":"message","role":"developer","content":"Be kind."},
                 {"role":"user","content":[{"type":"input_text","text":"Hi"}]}],
                 "store":false,"include":["reasoning.encrypted_content"],"prompt_cache_key":"k","service_tier":"auto",
                 "metadata":{"a":"b"},"user":"u","safety_identifier":"s","truncation":"disabled","background":false,
                 "client_metadata":{"x":1},"stream_options":{"include_obfuscation":false},"parallel_tool_calls":true,
                 "tools":[{"type":"web_search"},{"type":"file_search","vector_store_ids":["v"]}],"tool_choice":"auto"}""");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(r).get("status").asText()).isEqualTo("completed");
    }

    @Test
    void badFieldsAreA400NamingThem() throws Exception {
        assertError("{\"model\":\"fake-model\",\"input\":42}", "input");
        assertError("{\"model\":\"fake-model\",\"input\":[{\"role\":\"robot\",\"content\":\"x\"}]}", "input[0].role");
        assertError("{\"model\":\"fake-model\",\"input\":\"x\",\"tools\":[{\"type\":\"teleport\"}]}", "tools[0].type");
        assertError("{\"model\":\"fake-model\",\"input\":\"x\",\"text\":{\"format\":{\"type\":\"yaml\"}}}",
                "text.format.type");
        assertError("{\"model\":\"fake-model\",\"input\":\"x\",\"background\":true}", "background");
        assertError("{\"model\":\"fake-model\",\"input\":\"x\",\"text\":{\"format\":{\"type\":\"json_schema\","
                + "\"name\":\"n\",\"schema\":{\"type\":\"object\",\"not\":{}}}}}", "text.format.schema");
        assertError("{\"model\":\"fake-model\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\","
                + "\"image_url\":\"x\"}]}]}", "input[0].content[0].type");
    }

    private static void assertError(String body, String param) throws Exception {
        HttpResponse<String> r = server.post("/v1/responses", body);
        assertThat(r.statusCode()).as(body).isEqualTo(400);
        assertThat(TestServer.json(r).get("error").get("param").asText()).isEqualTo(param);
    }
}
