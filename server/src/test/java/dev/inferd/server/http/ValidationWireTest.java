package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.http.HttpResponse;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Every validation rule, over HTTP: status, the error shape, the offending {@code param}, the message. */
class ValidationWireTest {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final String MESSAGES = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    private static String chat(String extra) {
        return "{\"model\":\"fake-model\"," + MESSAGES + "," + extra + "}";
    }

    private static String completion(String extra) {
        return "{\"model\":\"fake-model\",\"prompt\":\"hi\"," + extra + "}";
    }

    static Stream<Arguments> invalidChatRequests() {
        return Stream.of(
                arguments("{", null, "We could not parse the JSON body of your request."),
                arguments("", null, "We could not parse the JSON body of your request."),
                arguments("{\"model\":\"fake-model\"} trailing", null, "We could not parse the JSON body"),
                arguments("[1,2]", null, "must be a JSON object"),
                arguments("{" + MESSAGES + "}", "model", "Missing required parameter: 'model'."),
                arguments("{\"model\":7," + MESSAGES + "}", "model", "Invalid type for 'model': expected a string, but got an integer instead."),
                arguments("{\"model\":\"fake-model\"}", "messages", "Missing required parameter: 'messages'."),
                arguments("{\"model\":\"fake-model\",\"messages\":[]}", "messages", "empty array"),
                arguments("{\"model\":\"fake-model\",\"messages\":\"hi\"}", "messages", "expected an array"),
                arguments("{\"model\":\"fake-model\",\"messages\":[\"hi\"]}", "messages[0]", "expected an object"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"content\":\"hi\"}]}", "messages[0].role", "Missing required parameter"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}]}", "messages[0].role", "'wizard'"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\"}]}", "messages[0].content", "Missing required parameter"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":5}]}", "messages[0].content", "Invalid type"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://x/y.png\"}}]}]}",
                        "messages[0].content[0].type", "'image_url' are not supported"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\",\"input_audio\":{}}]}]}",
                        "messages[0].content[0].type", "'input_audio' are not supported"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]}",
                        "messages[0].content[0].text", "Missing required parameter"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"tool\",\"content\":\"18C\"}]}", "messages[0].tool_call_id", "Missing required parameter"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"function\",\"name\":\"f\",\"content\":\"x\"}]}", "messages[0].role", "not supported"),
                arguments("{\"model\":\"fake-model\",\"messages\":[{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{nope\"}}]}]}",
                        "messages[0].tool_calls[0].function.arguments", "not a JSON text"),
                arguments(chat("\"temperature\":3"), "temperature", "Invalid value for 'temperature': must be between 0 and 2, but got 3."),
                arguments(chat("\"temperature\":-0.1"), "temperature", "must be between 0 and 2"),
                arguments(chat("\"temperature\":\"hot\""), "temperature", "Invalid type for 'temperature': expected a number, but got a string instead."),
                arguments(chat("\"top_p\":1.5"), "top_p", "must be between 0 and 1"),
                arguments(chat("\"n\":0"), "n", "Invalid value for 'n': must be between 1 and 128, but got 0."),
                arguments(chat("\"n\":129"), "n", "must be between 1 and 128"),
                arguments(chat("\"n\":\"2\""), "n", "Invalid type for 'n': expected an integer, but got a string instead."),
                arguments(chat("\"n\":1.5"), "n", "expected an integer, but got a decimal number"),
                arguments(chat("\"max_tokens\":0"), "max_tokens", "must be at least 1"),
                arguments(chat("\"max_tokens\":-5"), "max_tokens", "must be at least 1"),
                arguments(chat("\"max_completion_tokens\":0"), "max_completion_tokens", "must be at least 1"),
                arguments(chat("\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]"), "stop", "array of 1 to 4 strings"),
                arguments(chat("\"stop\":[]"), "stop", "array of 1 to 4 strings"),
                arguments(chat("\"stop\":3"), "stop", "Invalid type for 'stop'"),
                arguments(chat("\"stop\":[\"a\",1]"), "stop[1]", "Invalid type for 'stop[1]'"),
                arguments(chat("\"stop\":\"\""), "stop", "must not be empty"),
                arguments(chat("\"presence_penalty\":2.5"), "presence_penalty", "must be between -2 and 2"),
                arguments(chat("\"frequency_penalty\":-3"), "frequency_penalty", "must be between -2 and 2"),
                arguments(chat("\"logit_bias\":{\"abc\":1}"), "logit_bias", "'abc' is not a token id"),
                arguments(chat("\"logit_bias\":{\"5\":101}"), "logit_bias", "must be between -100 and 100"),
                arguments(chat("\"logit_bias\":{\"5\":\"x\"}"), "logit_bias.5", "expected a number"),
                arguments(chat("\"logit_bias\":[1]"), "logit_bias", "expected an object"),
                arguments(chat("\"logprobs\":\"yes\""), "logprobs", "expected a boolean"),
                arguments(chat("\"logprobs\":true,\"top_logprobs\":21"), "top_logprobs", "must be between 0 and 20"),
                arguments(chat("\"top_logprobs\":2"), "top_logprobs", "'logprobs' must be set to true"),
                arguments(chat("\"seed\":\"x\""), "seed", "expected an integer"),
                arguments(chat("\"seed\":1.5"), "seed", "expected an integer"),
                arguments(chat("\"stream\":\"true\""), "stream", "expected a boolean"),
                arguments(chat("\"stream\":true,\"stream_options\":{\"include_usage\":1}"), "stream_options.include_usage", "expected a boolean"),
                arguments(chat("\"tools\":[{\"type\":\"custom\",\"custom\":{\"name\":\"f\"}}]"), "tools[0].type", "only 'function' tools"),
                arguments(chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a b\"}}]"), "tools[0].function.name", "Names may contain only"),
                arguments(chat("\"tool_choice\":\"required\""), "tool_choice", "'required' needs 'tools'"),
                arguments(chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"g\"}}"), "tool_choice.function.name", "no tool named 'g'"),
                arguments(chat("\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"no spaces\"}}"), "response_format.json_schema.name", "Names may contain only"),
                arguments(chat("\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":{\"type\":\"array\",\"uniqueItems\":true}}}"), "response_format.json_schema.schema", "uniqueItems"),
                arguments(chat("\"response_format\":{\"type\":\"yaml\"}"), "response_format.type", "'yaml'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidChatRequests")
    void invalidChatRequestIsA400NamingTheField(String body, String param, String message) throws Exception {
        int calls = server.model.generateCalls.get();
        assertBadRequest(server.post("/v1/chat/completions", body), param, message);
        assertThat(server.model.generateCalls).hasValue(calls);
    }

    static Stream<Arguments> invalidCompletionRequests() {
        return Stream.of(
                arguments("{\"model\":\"fake-model\"}", "prompt", "Missing required parameter: 'prompt'."),
                arguments("{\"prompt\":\"hi\"}", "model", "Missing required parameter: 'model'."),
                arguments("{\"model\":\"fake-model\",\"prompt\":[1,2,3]}", "prompt", "token ids are not supported"),
                arguments("{\"model\":\"fake-model\",\"prompt\":[[1,2]]}", "prompt", "token ids are not supported"),
                arguments("{\"model\":\"fake-model\",\"prompt\":[]}", "prompt", "empty array"),
                arguments("{\"model\":\"fake-model\",\"prompt\":5}", "prompt", "Invalid type for 'prompt'"),
                arguments("{\"model\":\"fake-model\",\"prompt\":[\"a\",{}]}", "prompt[1]", "expected a string"),
                arguments(completion("\"suffix\":\"end\""), "suffix", "not supported"),
                arguments(completion("\"max_tokens\":-1"), "max_tokens", "must be at least 0"),
                arguments(completion("\"n\":2,\"best_of\":1"), "best_of", "must be at least 'n' (2)"),
                arguments(completion("\"best_of\":3"), "best_of", "not supported"),
                arguments(completion("\"logprobs\":6"), "logprobs", "must be between 0 and 5"),
                arguments(completion("\"logprobs\":true"), "logprobs", "expected an integer, but got a boolean"),
                arguments(completion("\"echo\":true,\"logprobs\":1"), "logprobs", "not supported"),
                arguments(completion("\"echo\":\"yes\""), "echo", "expected a boolean"),
                arguments(completion("\"temperature\":2.5"), "temperature", "must be between 0 and 2"),
                arguments(completion("\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]"), "stop", "array of 1 to 4 strings"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidCompletionRequests")
    void invalidCompletionRequestIsA400NamingTheField(String body, String param, String message) throws Exception {
        int calls = server.model.generateCalls.get();
        assertBadRequest(server.post("/v1/completions", body), param, message);
        assertThat(server.model.generateCalls).hasValue(calls);
    }

    static Stream<Arguments> acceptedRequests() {
        return Stream.of(
                arguments("/v1/chat/completions", chat("\"unknown_new_field\":{\"a\":[1]},\"store\":true,\"reasoning_effort\":\"low\"")),
                arguments("/v1/chat/completions", chat("\"temperature\":null,\"n\":null,\"stop\":null,\"tools\":null,\"logit_bias\":null")),
                arguments("/v1/chat/completions", chat("\"tools\":[],\"tool_choice\":\"none\",\"response_format\":{\"type\":\"text\"}")),
                arguments("/v1/chat/completions", chat("\"n\":2.0,\"top_p\":0,\"temperature\":0,\"seed\":-9223372036854775808")),
                arguments("/v1/chat/completions", chat("\"stream_options\":{\"include_usage\":true}")),
                arguments("/v1/completions", completion("\"best_of\":1,\"n\":1,\"suffix\":null,\"user\":\"u\"")),
                arguments("/v1/completions", completion("\"max_tokens\":0")));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("acceptedRequests")
    void optionalNullAndUnknownFieldsAreAccepted(String path, String body) throws Exception {
        HttpResponse<String> response = server.post(path, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private static void assertBadRequest(HttpResponse<String> response, String param, String message) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/json"));
        assertThat(response.headers().firstValue("x-request-id")).isPresent();
        JsonNode root = TestServer.json(response);
        assertThat(root.size()).isEqualTo(1);
        JsonNode error = root.get("error");
        assertThat(error.size()).isEqualTo(4);
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("code").isInt()).isTrue();
        assertThat(error.get("code").asInt()).isEqualTo(400);
        assertThat(error.has("param")).isTrue();
        if (param == null) {
            assertThat(error.get("param").isNull()).isTrue();
        } else {
            assertThat(error.get("param").asText()).isEqualTo(param);
        }
        assertThat(error.get("message").asText()).contains(message);
    }
}
