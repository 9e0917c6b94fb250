package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile request bodies over a real socket: every field of the chat and legacy requests with every
 * JSON type it does not take, values out of range, and bodies that are not JSON or not UTF-8. Each
 * is a 400 in OpenAI's error shape, answered at once. The Responses and Messages requests' fields get
 * every JSON kind too: any answer but a 5xx or a hang.
 */
class HostileJsonTest {

    private static TestServer server;

    /** A sample of each JSON kind, named by what {@code Fields.describe} calls it. */
    private static final Map<String, List<String>> SAMPLES = new LinkedHashMap<>();

    static {
        SAMPLES.put("string", List.of("\"x\"", "\"\""));
        SAMPLES.put("integer", List.of("7", "-1", "0"));
        SAMPLES.put("decimal", List.of("1.5", "-0.25", "1e400"));
        SAMPLES.put("huge", List.of("123456789012345678901234567890"));
        SAMPLES.put("boolean", List.of("true", "false"));
        SAMPLES.put("array", List.of("[]", "[1]", "[\"x\"]", "[{}]"));
        SAMPLES.put("object", List.of("{}", "{\"a\":1}"));
    }

    /** The JSON kinds each field accepts; any other kind is a 400. */
    private record FieldSpec(String name, Set<String> kinds) {
    }

    private static final Set<String> NUMBER = Set.of("integer", "decimal", "huge");
    private static final Set<String> INTEGER = Set.of("integer");

    private static final List<FieldSpec> SHARED = List.of(
            new FieldSpec("model", Set.of("string")),
            new FieldSpec("stream", Set.of("boolean")),
            new FieldSpec("stream_options", Set.of("object")),
            new FieldSpec("temperature", NUMBER),
            new FieldSpec("top_p", NUMBER),
            new FieldSpec("presence_penalty", NUMBER),
            new FieldSpec("frequency_penalty", NUMBER),
            new FieldSpec("n", INTEGER),
            new FieldSpec("seed", INTEGER),
            new FieldSpec("max_tokens", INTEGER),
            new FieldSpec("stop", Set.of("string", "array")),
            new FieldSpec("logit_bias", Set.of("object")));

    private static final List<FieldSpec> CHAT = concat(SHARED, List.of(
            new FieldSpec("messages", Set.of("array")),
            new FieldSpec("max_completion_tokens", INTEGER),
            new FieldSpec("logprobs", Set.of("boolean")),
            new FieldSpec("top_logprobs", INTEGER),
            new FieldSpec("tools", Set.of("array")),
            new FieldSpec("tool_choice", Set.of("string")),
            new FieldSpec("response_format", Set.of("object"))));

    private static final List<FieldSpec> LEGACY = concat(SHARED, List.of(
            new FieldSpec("prompt", Set.of("string", "array")),
            new FieldSpec("suffix", Set.of("string")),
            new FieldSpec("best_of", INTEGER),
            new FieldSpec("echo", Set.of("boolean")),
            new FieldSpec("logprobs", INTEGER)));

    private static final Map<String, String> CHAT_BASE = Map.of("model", "\"fake-model\"", "max_tokens", "4",
            "messages", "[{\"role\":\"user\",\"content\":\"Hi\"}]");
    private static final Map<String, String> LEGACY_BASE = Map.of("model", "\"fake-model\"", "max_tokens", "4",
            "prompt", "\"Hi\"");

    private static final List<String> RESPONSES_FIELDS = List.of("model", "input", "instructions", "stream",
            "stream_options", "store", "background", "previous_response_id", "conversation", "include", "metadata",
            "max_output_tokens", "max_tool_calls", "temperature", "top_p", "top_logprobs", "reasoning", "text",
            "tools", "tool_choice", "parallel_tool_calls", "truncation", "prompt", "prompt_cache_key", "user",
            "safety_identifier", "service_tier");
    private static final Map<String, String> RESPONSES_BASE = Map.of("model", "\"fake-model\"",
            "max_output_tokens", "4", "input", "\"Hi\"");

    private static final List<String> MESSAGES_FIELDS = List.of("model", "messages", "max_tokens", "system",
            "stop_sequences", "stream", "temperature", "top_p", "top_k", "thinking", "tools", "tool_choice",
            "metadata", "service_tier");
    private static final Map<String, String> MESSAGES_BASE = Map.of("model", "\"fake-model\"", "max_tokens", "4",
            "messages", "[{\"role\":\"user\",\"content\":\"Hi\"}]");

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Every top-level field of a Responses request with every JSON kind: a 200 or a 4xx in OpenAI's shape. */
    @TestFactory
    Stream<DynamicTest> everyResponsesFieldWithEveryType() {
        return anyTypes("/v1/responses", RESPONSES_BASE, RESPONSES_FIELDS);
    }

    /** Every top-level field of a Messages request with every JSON kind: a 200 or a 4xx in Anthropic's shape. */
    @TestFactory
    Stream<DynamicTest> everyMessagesFieldWithEveryType() {
        return anyTypes("/v1/messages", MESSAGES_BASE, MESSAGES_FIELDS);
    }

    @TestFactory
    Stream<DynamicTest> everyChatFieldWithEveryWrongType() {
        return wrongTypes("/v1/chat/completions", CHAT_BASE, CHAT);
    }

    @TestFactory
    Stream<DynamicTest> everyLegacyFieldWithEveryWrongType() {
        return wrongTypes("/v1/completions", LEGACY_BASE, LEGACY);
    }

    @TestFactory
    Stream<DynamicTest> everyMessageFieldWithEveryWrongType() {
        List<DynamicTest> tests = new ArrayList<>();
        Map<String, Set<String>> fields = Map.of("role", Set.of("string"), "content", Set.of("string", "array"),
                "name", Set.of("string", "integer", "decimal", "huge", "boolean", "array", "object"));
        fields.forEach((field, kinds) -> SAMPLES.forEach((kind, values) -> {
            for (String value : values) {
                String message = "{\"role\":\"user\",\"content\":\"Hi\",\"" + field + "\":" + value + "}";
                String body = "{\"model\":\"fake-model\",\"max_tokens\":4,\"messages\":[" + message + "]}";
                boolean wrong = !kinds.contains(kind);
                tests.add(DynamicTest.dynamicTest("messages[0]." + field + "=" + value,
                        () -> expect("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), wrong)));
            }
        }));
        for (String message : List.of("1", "\"x\"", "[]", "null", "true", "{}", "{\"role\":\"user\"}",
                "{\"content\":\"x\"}", "{\"role\":\"nobody\",\"content\":\"x\"}",
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}",
                "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}",
                "{\"role\":\"user\",\"content\":[1]}", "{\"role\":\"tool\",\"content\":\"x\"}")) {
            String body = "{\"model\":\"fake-model\",\"messages\":[" + message + "]}";
            tests.add(DynamicTest.dynamicTest("messages[0]=" + message,
                    () -> expect("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), true)));
        }
        return tests.stream();
    }

    /** Values of the right type that no request may carry. */
    @TestFactory
    Stream<DynamicTest> valuesOutOfRange() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String[] fv : new String[][]{{"temperature", "2.5"}, {"top_p", "-0.1"}, {"n", "0"}, {"n", "100000"},
                {"max_tokens", "0"}, {"max_tokens", "100000"},                 {"presence_penalty", "-3"}, {"stop", "[\"a\",\"b\",\"c\",\"d\",\"e\"]"}, {"stop", "[\"\"]"},
                {"logit_bias", "{\"999999999\":1}"}, {"logit_bias", "{\"-1\":1}"}, {"logit_bias", "{\"32000\":1}"},
                {"top_logprobs", "21"}, {"model", "\"no-such-model\""}, {"messages", "[]"}}) {
            tests.add(DynamicTest.dynamicTest("chat " + fv[0] + "=" + fv[1],
                    () -> expect("/v1/chat/completions", with(CHAT_BASE, fv[0], fv[1]), true)));
        }
        Map<String, String> chatWithoutCap = new LinkedHashMap<>(CHAT_BASE);
        chatWithoutCap.remove("max_tokens");
        tests.add(DynamicTest.dynamicTest("chat max_completion_tokens=100000",
                () -> expect("/v1/chat/completions", with(chatWithoutCap, "max_completion_tokens", "100000"), true)));
        for (String[] fv : new String[][]{{"logit_bias", "{\"999999999\":1}"}, {"logit_bias", "{\"32000\":1}"},
                {"logit_bias", "{\"x\":1}"}, {"logit_bias", "{\"1\":101}"}, {"max_tokens", "100000"},
                {"logprobs", "6"}, {"best_of", "21"}, {"prompt", "[1,2,3]"}, {"prompt", "[]"}}) {
            tests.add(DynamicTest.dynamicTest("legacy " + fv[0] + "=" + fv[1],
                    () -> expect("/v1/completions", with(LEGACY_BASE, fv[0], fv[1]), true)));
        }
        for (String path : List.of("/v1/chat/completions", "/v1/completions")) {
            Map<String, String> base = path.contains("chat") ? CHAT_BASE : LEGACY_BASE;
            tests.add(DynamicTest.dynamicTest(path + " streamed logit_bias out of the vocabulary",
                    () -> expect(path, with(withField(base, "stream", "true"), "logit_bias", "{\"70000\":5}"), true)));
        }
        return tests.stream();
    }

    /** Bodies that are not one JSON object, or not UTF-8. */
    @TestFactory
    Stream<DynamicTest> bodiesThatAreNotAJsonObject() {
        List<String> bodies = List.of("", " ", "null", "1", "\"x\"", "[]", "true", "{", "}", "{\"model\":}",
                "{\"model\":\"fake-model\"", "{\"model\":\"fake-model\"} trailing", "{'model':'fake-model'}",
                "{\"model\":NaN}", "{\"model\":\"fake-model\",\"temperature\":Infinity}",
                "[".repeat(5000) + "]".repeat(5000), "{\"a\":".repeat(3000) + "1" + "}".repeat(3000),
                "{\"model\":\"\\ud800\"}", "{\"model\":\"\\u00\"}", "\u0000");
        List<DynamicTest> tests = new ArrayList<>();
        for (String path : List.of("/v1/chat/completions", "/v1/completions")) {
            for (String body : bodies) {
                tests.add(DynamicTest.dynamicTest(path + " " + abbreviate(body),
                        () -> expect(path, body.getBytes(StandardCharsets.UTF_8), true)));
            }
            // Overlong, truncated, surrogate-encoding and stray UTF-8 inside strings.
            for (String hex : List.of("c0af", "e080af", "f08080af", "eda080", "ff", "c3", "80", "f4908080")) {
                byte[] bad = HexFormat.of().parseHex(hex);
                String prefix = path.contains("chat")
                        ? "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"a"
                        : "{\"model\":\"fake-model\",\"prompt\":\"a";
                String suffix = path.contains("chat") ? "b\"}]}" : "b\"}";
                byte[] body = concat(prefix.getBytes(StandardCharsets.UTF_8), bad, suffix.getBytes(StandardCharsets.UTF_8));
                tests.add(DynamicTest.dynamicTest(path + " UTF-8 bytes " + hex, () -> expect(path, body, true)));
            }
        }
        return tests.stream();
    }

    private static Stream<DynamicTest> wrongTypes(String path, Map<String, String> base, List<FieldSpec> fields) {
        List<DynamicTest> tests = new ArrayList<>();
        for (FieldSpec field : fields) {
            SAMPLES.forEach((kind, values) -> {
                for (String value : values) {
                    boolean wrong = !field.kinds().contains(kind);
                    tests.add(DynamicTest.dynamicTest(field.name() + "=" + value,
                            () -> expect(path, with(base, field.name(), value), wrong)));
                }
            });
        }
        return tests.stream();
    }

    private static Stream<DynamicTest> anyTypes(String path, Map<String, String> base, List<String> fields) {
        List<DynamicTest> tests = new ArrayList<>();
        for (String field : fields) {
            SAMPLES.forEach((kind, values) -> {
                for (String value : values) {
                    tests.add(DynamicTest.dynamicTest(field + "=" + value,
                            () -> expectNoServerError(path, with(base, field, value))));
                }
            });
        }
        return tests.stream();
    }

    /** A 5xx or a hang fails; a 4xx carries an {@code error} object with a message, as both protocols' shapes do. */
    private static void expectNoServerError(String path, byte[] body) throws Exception {
        RawHttp.Response response = RawHttp.exchange(server.server.port(), RawHttp.post(path, body, ""), false);
        assertThat(response.status()).as(response.toString()).isBetween(200, 499);
        if (response.status() >= 400) {
            JsonNode error = TestServer.MAPPER.readTree(response.body()).get("error");
            assertThat(error).as(response.toString()).isNotNull();
            assertThat(error.path("message").isTextual()).as(response.toString()).isTrue();
        }
    }

    /** The body with one field set (replaced if present). */
    private static byte[] with(Map<String, String> base, String field, String value) {
        return json(withField(base, field, value));
    }

    private static Map<String, String> withField(Map<String, String> base, String field, String value) {
        Map<String, String> fields = new LinkedHashMap<>(base);
        fields.put(field, value);
        return fields;
    }

    private static byte[] json(Map<String, String> fields) {
        StringBuilder json = new StringBuilder("{");
        fields.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Sends one body; a 5xx, a hang or a malformed error body fails. When {@code mustFail}, the answer
     * is a 4xx; otherwise it may also be a 200.
     */
    static void expect(String path, byte[] body, boolean mustFail) throws Exception {
        RawHttp.Response response = RawHttp.exchange(server.server.port(), RawHttp.post(path, body, ""), false);
        assertThat(response.status()).as(response.toString()).isBetween(200, 499);
        if (mustFail) assertThat(response.status()).as(response.toString()).isBetween(400, 499);
        if (response.status() >= 400) {
            assertThat(response.hasErrorShape()).as(response.toString()).isTrue();
            assertThat(response.headers().get("content-type")).startsWith("application/json");
        }
    }

    private static List<FieldSpec> concat(List<FieldSpec> a, List<FieldSpec> b) {
        List<FieldSpec> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) length += p.length;
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "... (" + s.length() + " chars)";
    }
}
