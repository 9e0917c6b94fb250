package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Anthropic's Messages API on the wire, against the fake engine: the reply and its stream events in the
 * documented shapes and order, stop reasons, thinking blocks, token counting, and errors in Anthropic's shape
 * on every path under {@code /v1/messages}, also those from code shared with the OpenAI routes.
 */
class MessagesWireTest {
    private static final String THINKING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}{# replies may open <think> #}";

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private static String request(String extra) {
        return "{\"model\":\"fake-model\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]"
                + extra + "}";
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return server.http.send(HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("x-api-key", "sk-anything")
                .header("anthropic-version", "2023-06-01").header("anthropic-beta", "claude-code-20250219")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    record Event(String name, JsonNode data) {
    }

    /** The stream's events; every one is named, and its name is its data's {@code type}. */
    static List<Event> events(String body) throws Exception {
        List<Event> events = new ArrayList<>();
        String name = null;
        for (String line : body.split("\n")) {
            if (line.startsWith("event: ")) {
                name = line.substring(7);
            } else if (line.startsWith("data: ")) {
                assertThat(name).as("an event: line before each data: line").isNotNull();
                JsonNode data = TestServer.MAPPER.readTree(line.substring(6));
                assertThat(data.get("type").asText()).isEqualTo(name);
                events.add(new Event(name, data));
                name = null;
            }
        }
        return events;
    }

    @Test
    void aReplyIsAMessageWithTextAndUsage() throws Exception {
        var response = post("/v1/messages", request(""));
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode message = TestServer.json(response);
        assertThat(message.get("id").asText()).startsWith("msg_");
        assertThat(message.get("type").asText()).isEqualTo("message");
        assertThat(message.get("role").asText()).isEqualTo("assistant");
        assertThat(message.get("model").asText()).isEqualTo("fake-model");
        assertThat(message.get("content")).hasSize(1);
        assertThat(message.get("content").get(0).get("type").asText()).isEqualTo("text");
        assertThat(message.get("content").get(0).get("text").asText()).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(message.get("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(message.has("stop_sequence")).isTrue();
        assertThat(message.get("stop_sequence").isNull()).isTrue();
        JsonNode usage = message.get("usage");
        assertThat(usage.get("input_tokens").isInt()).isTrue();
        assertThat(usage.get("input_tokens").asInt()).isPositive();
        assertThat(usage.get("output_tokens").asInt()).isEqualTo(13);
        assertThat(usage.get("cache_read_input_tokens").asInt()).isZero();
        assertThat(usage.get("cache_creation_input_tokens").asInt()).isZero();
    }

    @Test
    void aStreamFollowsTheDocumentedEventOrder() throws Exception {
        var response = post("/v1/messages?beta=true", request(",\"stream\":true"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        List<Event> events = events(response.body());
        assertThat(events.getFirst().name()).isEqualTo("message_start");
        JsonNode started = events.getFirst().data().get("message");
        assertThat(started.get("content")).isEmpty();
        assertThat(started.get("stop_reason").isNull()).isTrue();
        List<String> names = events.stream().map(Event::name).filter(n -> !n.equals("ping")).toList();
        assertThat(names.getFirst()).isEqualTo("message_start");
        assertThat(names.get(1)).isEqualTo("content_block_start");
        assertThat(names.subList(2, names.size() - 3)).containsOnly("content_block_delta");
        assertThat(names.subList(names.size() - 3, names.size()))
                .containsExactly("content_block_stop", "message_delta", "message_stop");
        StringBuilder text = new StringBuilder();
        for (Event e : events) {
            if (e.name().equals("content_block_delta")) {
                assertThat(e.data().get("index").asInt()).isZero();
                assertThat(e.data().get("delta").get("type").asText()).isEqualTo("text_delta");
                text.append(e.data().get("delta").get("text").asText());
            }
        }
        assertThat(text.toString()).isEqualTo(FakeTextGenerator.TEXT);
        JsonNode delta = events.get(events.size() - 2).data();
        assertThat(delta.get("delta").get("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(delta.get("usage").get("output_tokens").asInt()).isEqualTo(13);
        assertThat(response.body()).doesNotContain("[DONE]");
    }

    @Test
    void aStopSequenceEndsTheReplyAndIsNamed() throws Exception {
        JsonNode message = TestServer.json(post("/v1/messages", request(",\"stop_sequences\":[\"tiny\",\"zebra\"]")));
        assertThat(message.get("stop_reason").asText()).isEqualTo("stop_sequence");
        assertThat(message.get("stop_sequence").asText()).isEqualTo("tiny");
        assertThat(message.get("content").get(0).get("text").asText()).isEqualTo("Once upon a time, there was a ");

        List<Event> events = events(post("/v1/messages", request(",\"stream\":true,\"stop_sequences\":[\"tiny\"]")).body());
        JsonNode delta = events.stream().filter(e -> e.name().equals("message_delta")).findFirst().orElseThrow().data();
        assertThat(delta.get("delta").get("stop_reason").asText()).isEqualTo("stop_sequence");
        assertThat(delta.get("delta").get("stop_sequence").asText()).isEqualTo("tiny");
    }

    @Test
    void aCapBeyondTheContextIsClampedAndTheReplyStopsForLength() throws Exception {
        // The fake model's context is 64 tokens; Claude Code asks for 32000.
        server.model.text("word ".repeat(100));
        var response = post("/v1/messages", request("").replace("\"max_tokens\":20", "\"max_tokens\":32000"));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode message = TestServer.json(response);
        assertThat(message.get("stop_reason").asText()).isEqualTo("max_tokens");
        JsonNode usage = message.get("usage");
        assertThat(usage.get("input_tokens").asInt() + usage.get("output_tokens").asInt()).isEqualTo(TestServer.CONTEXT);
    }

    @Test
    void maxTokensEndsTheReplyWithMaxTokens() throws Exception {
        JsonNode message = TestServer.json(post("/v1/messages", request("").replace("\"max_tokens\":20", "\"max_tokens\":3")));
        assertThat(message.get("stop_reason").asText()).isEqualTo("max_tokens");
        assertThat(message.get("usage").get("output_tokens").asInt()).isEqualTo(3);
    }

    @Test
    void thinkingIsAThinkingBlockWithASignature() throws Exception {
        server.model.template(THINKING_TEMPLATE).text("<think>Let me see.</think> Hello there");
        String thinking = ",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}";
        String body = request(thinking).replace("\"max_tokens\":20", "\"max_tokens\":2000");
        JsonNode content = TestServer.json(post("/v1/messages", body)).get("content");
        assertThat(content.get(0).get("type").asText()).isEqualTo("thinking");
        assertThat(content.get(0).get("thinking").asText()).isEqualTo("Let me see.");
        assertThat(content.get(0).get("signature").asText()).isNotEmpty();
        assertThat(content.get(1).get("type").asText()).isEqualTo("text");
        assertThat(content.get(1).get("text").asText()).isEqualTo("Hello there");

        List<Event> events = events(post("/v1/messages", body.replace("{\"model\"", "{\"stream\":true,\"model\"")).body());
        List<String> blocks = events.stream().filter(e -> e.name().startsWith("content_block"))
                .map(e -> e.name() + ":" + e.data().get("index") + (e.data().has("delta")
                        ? ":" + e.data().get("delta").get("type").asText() : "")).distinct().toList();
        assertThat(blocks).containsExactly("content_block_start:0", "content_block_delta:0:thinking_delta",
                "content_block_delta:0:signature_delta", "content_block_stop:0", "content_block_start:1",
                "content_block_delta:1:text_delta", "content_block_stop:1");
    }

    @Test
    void omittedThinkingKeepsOnlyTheSignature() throws Exception {
        server.model.template(THINKING_TEMPLATE).text("<think>Let me see.</think> Hello there");
        JsonNode content = TestServer.json(post("/v1/messages",
                request(",\"thinking\":{\"type\":\"adaptive\",\"display\":\"omitted\"}"))).get("content");
        assertThat(content.get(0).get("thinking").asText()).isEmpty();
        assertThat(content.get(0).get("signature").asText()).isNotEmpty();
    }

    @Test
    void aToolCallIsAToolUseBlockAndItsResultGoesBack() throws Exception {
        server.oddModel.text("{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}");
        String tools = ",\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather\",\"input_schema\":"
                + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]},"
                + "\"cache_control\":{\"type\":\"ephemeral\"}},{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}]";
        var response = post("/v1/messages", request(tools).replace("fake-model", TestServer.ODD_MODEL));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode message = TestServer.json(response);
        assertThat(message.get("stop_reason").asText()).isEqualTo("tool_use");
        JsonNode call = message.get("content").get(0);
        assertThat(call.get("type").asText()).isEqualTo("tool_use");
        assertThat(call.get("id").asText()).startsWith("toolu_");
        assertThat(call.get("name").asText()).isEqualTo("get_weather");
        assertThat(call.get("input").get("city").asText()).isEqualTo("Paris");

        List<Event> events = events(post("/v1/messages", request(tools + ",\"stream\":true").replace("fake-model", TestServer.ODD_MODEL)).body());
        JsonNode start = events.stream().filter(e -> e.name().equals("content_block_start")).findFirst().orElseThrow().data();
        assertThat(start.get("content_block").get("type").asText()).isEqualTo("tool_use");
        assertThat(start.get("content_block").get("input").isObject()).isTrue();
        String json = events.stream().filter(e -> e.name().equals("content_block_delta"))
                .map(e -> e.data().get("delta").get("partial_json").asText()).reduce("", String::concat);
        assertThat(TestServer.MAPPER.readTree(json).get("city").asText()).isEqualTo("Paris");

        server.oddModel.text("It is sunny.");
        String followUp = "{\"model\":\"" + TestServer.ODD_MODEL + "\",\"max_tokens\":20" + tools + ",\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hm\",\"signature\":\"x\"},"
                + "{\"type\":\"tool_use\",\"id\":\"" + call.get("id").asText() + "\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"" + call.get("id").asText()
                + "\",\"content\":[{\"type\":\"text\",\"text\":\"18C\"}]},{\"type\":\"text\",\"text\":\"Thanks\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]}";
        var answer = post("/v1/messages", followUp);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(TestServer.json(answer).get("content").get(0).get("text").asText()).isEqualTo("It is sunny.");
    }

    @Test
    void countTokensMatchesTheReplysInputTokens() throws Exception {
        String body = "{\"model\":\"fake-model\",\"system\":[{\"type\":\"text\",\"text\":\"Be brief.\"}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"How many tokens is this?\"}]}";
        var counted = post("/v1/messages/count_tokens?beta=true", body);
        assertThat(counted.statusCode()).as(counted.body()).isEqualTo(200);
        int tokens = TestServer.json(counted).get("input_tokens").asInt();
        JsonNode usage = TestServer.json(post("/v1/messages", body.replace("{\"model\"", "{\"max_tokens\":5,\"model\"")))
                .get("usage");
        assertThat(tokens).isPositive().isEqualTo(usage.get("input_tokens").asInt());
    }

    @Test
    void fieldsItCannotActOnAreAcceptedAndIgnored() throws Exception {
        var response = post("/v1/messages", request(",\"metadata\":{\"user_id\":\"u\"},\"service_tier\":\"auto\","
                + "\"context_management\":{\"edits\":[]},\"output_config\":{\"effort\":\"medium\"},\"container\":null,"
                + "\"mcp_servers\":[],\"temperature\":0.5,\"top_p\":0.9,\"top_k\":40,"
                + "\"system\":[{\"type\":\"text\",\"text\":\"Be kind.\",\"cache_control\":{\"type\":\"ephemeral\"}}]"));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(server.model.lastRequest.sampling().topK()).isEqualTo(40);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}|max_tokens",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{}}]}]}|text only",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"messages\":[]}|at least one message",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"robot\",\"content\":\"Hi\"}]}|messages[0].role",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"temperature\":1.5,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}|temperature",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"tool_choice\":{\"type\":\"tool\",\"name\":\"nope\"},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}|nope",
            "{\"model\":\"fake-model\",\"max_tokens\":5,\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":2000},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}|budget_tokens",
            "not json|parse",
    })
    void badRequestsAreAnthropicInvalidRequestErrors(String body, String mentioned) throws Exception {
        var response = post("/v1/messages", body);
        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = TestServer.json(response);
        assertThat(error.get("type").asText()).isEqualTo("error");
        assertThat(error.get("error").get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("error").get("message").asText()).contains(mentioned);
        assertThat(error.get("request_id").asText()).isEqualTo(response.headers().firstValue("x-request-id").orElseThrow());
    }

    @Test
    void sharedErrorPathsAnswerInAnthropicsShapeUnderMessages() throws Exception {
        var unknownModel = post("/v1/messages", request("").replace("fake-model", "no-such-model"));
        assertThat(unknownModel.statusCode()).isEqualTo(404);
        assertThat(TestServer.json(unknownModel).get("error").get("type").asText()).isEqualTo("not_found_error");

        var unknownPath = post("/v1/messages/batches", "{}");
        assertThat(unknownPath.statusCode()).isEqualTo(404);
        assertThat(TestServer.json(unknownPath).get("error").get("type").asText()).isEqualTo("not_found_error");

        var wrongMethod = server.get("/v1/messages");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(TestServer.json(wrongMethod).get("type").asText()).isEqualTo("error");

        server.model.busy(2);
        var busy = post("/v1/messages", request(""));
        assertThat(busy.statusCode()).isEqualTo(429);
        assertThat(TestServer.json(busy).get("error").get("type").asText()).isEqualTo("rate_limit_error");

        // The OpenAI routes keep OpenAI's shape.
        var chat = server.post("/v1/chat/completions", "{\"model\":\"no-such-model\",\"messages\":[]}");
        assertThat(TestServer.json(chat).get("error").has("code")).isTrue();
    }

    @Test
    void aBodyTooLargeIsA413InAnthropicsShape() throws Exception {
        try (var small = new TestServer(ServerOptions.defaults().withLimits(ServerOptions.defaults().limits().withMaxBodyBytes(1024)))) {
            var response = small.http.send(HttpRequest.newBuilder(URI.create(small.base() + "/v1/messages"))
                    .POST(HttpRequest.BodyPublishers.ofString(request(",\"system\":\"" + "x".repeat(2000) + "\""))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(413);
            assertThat(TestServer.json(response).get("error").get("type").asText()).isEqualTo("request_too_large");
        }
    }

    @Test
    void aFailureMidStreamIsAnErrorEvent() throws Exception {
        server.model.failAfterTokens(3);
        List<Event> events = events(post("/v1/messages", request(",\"stream\":true")).body());
        Event last = events.getLast();
        assertThat(last.name()).isEqualTo("error");
        assertThat(last.data().get("error").get("type").asText()).isEqualTo("api_error");
    }

    @Test
    void modelsAreListedInAnthropicsShapeForAnthropicClients() throws Exception {
        var response = server.http.send(HttpRequest.newBuilder(URI.create(server.base() + "/v1/models"))
                .header("anthropic-version", "2023-06-01").GET().build(), HttpResponse.BodyHandlers.ofString());
        JsonNode list = TestServer.json(response);
        assertThat(list.get("has_more").asBoolean()).isFalse();
        assertThat(list.get("data").get(0).get("type").asText()).isEqualTo("model");
        assertThat(list.get("data").get(0).get("id").asText()).isEqualTo(TestServer.MODEL);
        assertThat(list.get("data").get(0).get("created_at").asText()).contains("T");
        assertThat(list.get("first_id").asText()).isEqualTo(TestServer.MODEL);
        assertThat(TestServer.json(server.get("/v1/models")).get("object").asText()).isEqualTo("list");
    }

    @Test
    void aClientThatLeavesMidStreamCancelsTheGeneration() throws Exception {
        server.oddModel.text("word ".repeat(200)).delayMillis(20);
        String body = "{\"model\":\"org/tiny-model:Q8_0\",\"max_tokens\":1000,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}]}";
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.getOutputStream().write(("POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            InputStream in = socket.getInputStream();
            String seen = "";
            byte[] buffer = new byte[4096];
            while (!seen.contains("text_delta")) {
                int n = in.read(buffer);
                if (n < 0) break;
                seen += new String(buffer, 0, n, StandardCharsets.UTF_8);
            }
            assertThat(seen).contains("event: content_block_delta");
        }
        assertThat(server.oddModel.cancelSeen.await(10, TimeUnit.SECONDS)).as("engine saw isCancelled()").isTrue();
    }
}
