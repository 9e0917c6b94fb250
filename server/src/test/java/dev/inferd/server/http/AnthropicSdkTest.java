package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Anthropic SDK for Node ({@code @anthropic-ai/sdk}) against the Messages API over real HTTP, on
 * fake models whose replies are known: what the SDK parses from replies and streams (its stream helper checks
 * the event order as it accumulates), thinking blocks, a tool call and its result sent back, token counting,
 * errors, and a stream the client aborts.
 */
class AnthropicSdkTest {
    private static final String THINKER = "thinker";
    private static final String CALLER = "caller";
    private static final String SLOW = "slow";
    private static final String THINKING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}{# replies may open <think> #}";

    private static NodeClients node;
    private static TestServer server;
    private static final FakeTextGenerator slow = new FakeTextGenerator(SLOW, 4096).text("word ".repeat(500)).delayMillis(20);
    private static final List<String> requests = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        node = NodeClients.get();
        server = new TestServer();
        server.registry.ready(THINKER, new FakeTextGenerator(THINKER, 4096).template(THINKING_TEMPLATE)
                .text("<think>The user wants a greeting.</think> Hello there"));
        server.registry.ready(CALLER, new FakeTextGenerator(CALLER, 4096)
                .text("{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}"));
        server.registry.ready(SLOW, slow);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    /** Runs the script's scenario; what the SDK parsed, as the script printed it. */
    private static JsonNode run(String scenario) throws Exception {
        String config = TestServer.MAPPER.writeValueAsString(Map.of("baseUrl", server.base(), "scenarios", List.of(scenario),
                "modelText", TestServer.ODD_MODEL, "modelThinking", THINKER, "modelTools", CALLER, "modelSlow", SLOW));
        List<String> out = node.run("anthropic-messages.cjs", Duration.ofSeconds(120), config);
        assertThat(out).as("the script's output (its errors are on the test's stderr)").isNotEmpty();
        return TestServer.MAPPER.readTree(String.join("\n", out));
    }

    @Test
    void repliesStreamsAndTokenCountsParse() throws Exception {
        JsonNode out = run("text").get("text");
        JsonNode created = out.get("created");
        assertThat(created.get("id").asText()).startsWith("msg_");
        assertThat(created.get("content").get(0).get("text").asText()).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(created.get("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(out.get("counted").get("input_tokens").asInt()).isEqualTo(created.get("usage").get("input_tokens").asInt());
        assertThat(out.get("beta").get("content").get(0).get("text").asText()).isEqualTo(FakeTextGenerator.TEXT);

        JsonNode final_ = out.get("stream").get("final");
        assertThat(final_.get("content").get(0).get("text").asText()).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(final_.get("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(final_.get("usage").get("output_tokens").asInt()).isEqualTo(created.get("usage").get("output_tokens").asInt());
        List<String> events = new ArrayList<>();
        out.get("stream").get("events").forEach(e -> events.add(e.asText()));
        assertThat(events.getFirst()).isEqualTo("message_start");
        assertThat(events.subList(events.size() - 3, events.size()))
                .containsExactly("content_block_stop", "message_delta", "message_stop");
    }

    @Test
    void thinkingComesAsAThinkingBlockWithItsSignature() throws Exception {
        JsonNode out = run("thinking").get("thinking");
        for (JsonNode message : List.of(out.get("created"), out.get("stream").get("final"))) {
            JsonNode thinking = message.get("content").get(0);
            assertThat(thinking.get("type").asText()).isEqualTo("thinking");
            assertThat(thinking.get("thinking").asText()).isEqualTo("The user wants a greeting.");
            assertThat(thinking.get("signature").asText()).isNotEmpty();
            assertThat(message.get("content").get(1).get("text").asText()).isEqualTo("Hello there");
        }
        assertThat(out.get("stream").get("events").toString())
                .contains("content_block_delta:thinking_delta", "content_block_delta:signature_delta");
    }

    @Test
    void aToolCallGoesToTheClientAndItsResultComesBack() throws Exception {
        JsonNode out = run("tools").get("tools");
        JsonNode first = out.get("first");
        assertThat(first.get("stop_reason").asText()).isEqualTo("tool_use");
        JsonNode call = first.get("content").get(0);
        assertThat(call.get("type").asText()).isEqualTo("tool_use");
        assertThat(call.get("id").asText()).startsWith("toolu_");
        assertThat(call.get("input").get("city").asText()).isEqualTo("Paris");
        assertThat(out.get("followUp").get("type").asText()).isEqualTo("message");

        JsonNode streamedCall = out.get("stream").get("final").get("content").get(0);
        assertThat(streamedCall.get("type").asText()).isEqualTo("tool_use");
        assertThat(streamedCall.get("input").get("city").asText()).isEqualTo("Paris");
        assertThat(out.get("stream").get("events").toString()).contains("content_block_delta:input_json_delta");
    }

    @Test
    void errorsAreTheSdksTypedErrors() throws Exception {
        JsonNode out = run("errors").get("errors");
        assertThat(out.get("thrown").asBoolean()).isTrue();
        assertThat(out.get("name").asText()).isEqualTo("NotFoundError");
        assertThat(out.get("status").asInt()).isEqualTo(404);
        assertThat(out.get("type").asText()).isEqualTo("not_found_error");
        assertThat(out.get("requestId").asText()).startsWith("req_");
    }

    @Test
    void aStreamTheClientAbortsStopsTheGeneration() throws Exception {
        JsonNode out = run("cancel").get("cancel");
        assertThat(out.get("deltas").asInt()).isEqualTo(2);
        assertThat(slow.cancelSeen.await(10, TimeUnit.SECONDS)).as("the engine saw the cancellation").isTrue();
    }
}
