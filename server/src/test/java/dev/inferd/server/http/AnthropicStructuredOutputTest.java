package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Structured output through Anthropic's SDK: a forced tool ({@code tool_choice: {type: "tool"}}) on a real model
 * (stories260K, which knows nothing of tools) gives an input that validates against the tool's schema, whole or
 * streamed, because the server constrains the call to it; checked by an independent JSON Schema validator.
 */
@Tag("slow")
class AnthropicStructuredOutputTest {
    private static final String MODEL = "stories-260k";
    private static final String SCHEMA = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":1,"maxLength":12},
              "population":{"type":"integer","minimum":0,"maximum":99999},
              "coastal":{"type":"boolean"}},
             "required":["city","population","coastal"],"additionalProperties":false}""";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static InferdServer server;
    private static NodeClients node;

    @BeforeAll
    static void start() throws Exception {
        var model = LocalTextGenerator.open(Fixtures.storiesModel(), new LocalTextGenerator.Options(MODEL, null, 0));
        node = NodeClients.get();
        server = InferdServer.start("127.0.0.1", 0, Map.of(MODEL, model));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    @Test
    void aForcedToolsInputFollowsItsSchema() throws Exception {
        String config = JSON.writeValueAsString(Map.of("baseUrl", "http://127.0.0.1:" + server.port(),
                "scenarios", List.of("structured"), "modelStructured", MODEL, "schema", JSON.readTree(SCHEMA)));
        List<String> printed = node.run("anthropic-messages.cjs", Duration.ofSeconds(120), config);
        assertThat(printed).as("the script's output (its errors are on the test's stderr)").isNotEmpty();
        JsonNode out = JSON.readTree(String.join("\n", printed)).get("structured");
        var schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(SCHEMA, InputFormat.JSON);
        for (JsonNode message : List.of(out.get("created"), out.get("stream").get("final"))) {
            assertThat(message.get("stop_reason").asText()).as(message.toString()).isEqualTo("tool_use");
            JsonNode call = message.get("content").get(0);
            assertThat(call.get("type").asText()).isEqualTo("tool_use");
            assertThat(call.get("name").asText()).isEqualTo("record_city");
            assertThat(schema.validate(call.get("input").toString(), InputFormat.JSON)).as(call.toString()).isEmpty();
        }
    }
}
