package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseFormatTextJsonSchemaConfig;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStreamEvent;
import com.openai.models.responses.ResponseTextConfig;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.PublishedSchemas;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /v1/responses} on a real model (stories260K): structured output that validates against its JSON
 * Schema, through the OpenAI Java SDK streamed and not; and every stream event and response object checked
 * against the schemas of OpenAI's published OpenAPI document ({@code ../shared/reference/openapi.yaml}).
 */
class ResponsesEndToEndTest {
    private static final String MODEL = "stories-260k";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final String PERSON_SCHEMA = """
            {"type":"object","properties":{
              "name":{"type":"string","minLength":1,"maxLength":12},
              "age":{"type":"integer","minimum":0,"maximum":120},
              "pet":{"enum":["cat","dog","fish"]}},
             "required":["name","age","pet"],"additionalProperties":false}""";

    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        Path file = Fixtures.storiesModel();
        Map<String, TextGenerator> models = Map.of(MODEL,
                LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)));
        server = InferdServer.start("127.0.0.1", 0, models);
        client = OpenAIOkHttpClient.builder().baseUrl(base()).apiKey("sk-anything").maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static String base() {
        return "http://127.0.0.1:" + server.port() + "/v1";
    }

    private static ResponseCreateParams person() throws IOException {
        Map<String, JsonValue> schema = new LinkedHashMap<>();
        JSON.readTree(PERSON_SCHEMA).properties().forEach(e ->
                schema.put(e.getKey(), JsonValue.fromJsonNode(e.getValue())));
        return ResponseCreateParams.builder().model(MODEL).input("Describe a person as JSON.").maxOutputTokens(120)
                .temperature(0.9)
                .text(ResponseTextConfig.builder().format(ResponseFormatTextJsonSchemaConfig.builder().name("person")
                        .schema(ResponseFormatTextJsonSchemaConfig.Schema.builder().additionalProperties(schema).build())
                        .strict(true).build()).build())
                .build();
    }

    private static String outputText(Response response) {
        StringBuilder out = new StringBuilder();
        for (ResponseOutputItem item : response.output()) {
            item.message().ifPresent(m -> m.content().forEach(c -> c.outputText().ifPresent(t -> out.append(t.text()))));
        }
        return out.toString();
    }

    private static List<String> complaints(Schema schema, String json) {
        return schema.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    @Test
    void structuredOutputValidatesAgainstItsSchema() throws IOException {
        Schema schema = SCHEMAS.getSchema(PERSON_SCHEMA, InputFormat.JSON);
        Response response = client.responses().create(person());
        assertThat(complaints(schema, outputText(response))).as(outputText(response)).isEmpty();

        var accumulator = ResponseAccumulator.create();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(person())) {
            stream.stream().forEach(accumulator::accumulate);
        }
        String streamed = outputText(accumulator.response());
        assertThat(complaints(schema, streamed)).as(streamed).isEmpty();
    }

    @Test
    void aCapBelowTheSchemasShortestOutputIsA400NamingMaxOutputTokens() throws Exception {
        String body = "{\"model\":\"stories-260k\",\"input\":\"x\",\"max_output_tokens\":2,\"text\":{\"format\":"
                + "{\"type\":\"json_schema\",\"name\":\"person\",\"schema\":" + PERSON_SCHEMA + "}}}";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/responses"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        var error = JSON.readTree(r.body()).get("error");
        assertThat(error.get("param").asText()).isEqualTo("max_output_tokens");
        assertThat(error.get("message").asText()).contains("needs at least").contains("'max_output_tokens'");
    }

    @Test
    void streamEventsAndResponsesFollowThePublishedSchemas() throws Exception {
        PublishedSchemas schemas = PublishedSchemas.load();
        String body = "{\"model\":\"stories-260k\",\"input\":\"Once upon a time\",\"max_output_tokens\":24,\"stream\":true}";
        HttpResponse<String> streamed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/responses"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        List<String> types = new ArrayList<>();
        for (String frame : streamed.body().split("\n\n")) {
            String data = frame.substring(frame.indexOf("data: ") + 6);
            types.add(JSON.readTree(data).get("type").asText());
            assertThat(schemas.checkEvent(data)).as(data).isEmpty();
        }
        assertThat(types).startsWith("response.created", "response.in_progress").contains("response.output_text.delta");
        assertThat(types.getLast()).isIn("response.completed", "response.incomplete");

        HttpResponse<String> whole = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/responses"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.replace(",\"stream\":true", ""))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(schemas.check("Response", whole.body())).as(whole.body()).isEmpty();
    }
}
