package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.generate.ChatMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /v1/chat/completions} over raw HTTP: exact JSON types and exact SSE bytes. */
class ChatCompletionsWireTest {

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private static String chat(String extra) {
        return "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a story\"}]"
                + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    @Test
    void aRequestTheEngineCanNeverRunIsTheClientsError() throws Exception {
        server.model.refuse("the prompt needs more KV memory than the server has");
        HttpResponse<String> response = server.post("/v1/chat/completions", chat("\"stream\":true"));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(response).get("error").get("message").asText()).contains("more KV memory");
    }

    @Test
    void nonStreamingResponseHasEveryFieldWithIntegerTypes() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions", chat(""));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/json"));
        assertThat(response.headers().firstValue("x-request-id")).hasValueSatisfying(
                v -> assertThat(v).matches("req_[0-9a-f]{32}"));
        JsonNode body = TestServer.json(response);
        assertThat(body.get("id").asText()).startsWith("chatcmpl-");
        assertThat(body.get("object").asText()).isEqualTo("chat.completion");
        assertThat(body.get("created").isIntegralNumber()).isTrue();
        assertThat(body.get("created").asLong()).isCloseTo(System.currentTimeMillis() / 1000,
                org.assertj.core.data.Offset.offset(5L));
        assertThat(body.get("model").asText()).isEqualTo("fake-model");
        assertThat(body.get("system_fingerprint").asText()).startsWith("inferd-");
        assertThat(body.get("choices")).hasSize(1);
        JsonNode choice = body.get("choices").get(0);
        assertThat(choice.get("index").isInt()).isTrue();
        assertThat(choice.get("index").asInt()).isZero();
        assertThat(choice.get("message").toString()).isEqualTo(
                "{\"role\":\"assistant\",\"content\":\"" + FakeTextGenerator.TEXT + "\",\"refusal\":null}");
        assertThat(choice.has("logprobs")).isTrue();
        assertThat(choice.get("logprobs").isNull()).isTrue();
        assertThat(choice.get("finish_reason").asText()).isEqualTo("stop");
        // 1 (BOS) + 1 (the message) + 4 words; 13 generated words.
        assertThat(body.get("usage").toString()).isEqualTo("{\"prompt_tokens\":6,\"completion_tokens\":13,"
                + "\"total_tokens\":19,\"prompt_tokens_details\":{\"cached_tokens\":0},"
                + "\"completion_tokens_details\":{\"reasoning_tokens\":0}}");
    }

    @Test
    void streamHasExactlyOpenAisLayout() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions",
                chat("\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":3"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("text/event-stream"));
        String body = response.body();
        JsonNode first = TestServer.MAPPER.readTree(body.substring("data: ".length(), body.indexOf('\n')));
        String prefix = "data: {\"id\":\"" + first.get("id").asText() + "\",\"object\":\"chat.completion.chunk\","
                + "\"created\":" + first.get("created").asLong() + ",\"model\":\"fake-model\","
                + "\"system_fingerprint\":\"" + first.get("system_fingerprint").asText() + "\",";
        String expected = prefix + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\","
                + "\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once\"},\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" upon\"},\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"},\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
                + prefix + "\"choices\":[],\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":3,\"total_tokens\":9,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n"
                + "data: [DONE]\n\n";
        assertThat(body).isEqualTo(expected);
        assertThat(first.get("id").asText()).startsWith("chatcmpl-");
    }

    @Test
    void streamWithoutIncludeUsageHasNoUsageAnywhere() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions", chat("\"stream\":true"));

        List<JsonNode> events = events(response.body());
        assertThat(events).allSatisfy(e -> {
            assertThat(e.has("usage")).isFalse();
            assertThat(e.has("error")).isFalse();
            assertThat(e.get("choices")).hasSize(1);
        });
        assertThat(events.getLast().get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");
        assertThat(content(events, 0)).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(response.body()).endsWith("}\n\ndata: [DONE]\n\n").doesNotContain("event:").doesNotContain("\nid:");
    }

    @Test
    void streamedTextEqualsNonStreamedText() throws Exception {
        String plain = TestServer.json(server.post("/v1/chat/completions", chat("\"stop\":[\"tiny\",\"zzz\"]")))
                .get("choices").get(0).get("message").get("content").asText();
        List<JsonNode> events = events(server.post("/v1/chat/completions",
                chat("\"stream\":true,\"stop\":[\"tiny\",\"zzz\"]")).body());

        assertThat(plain).isEqualTo("Once upon a time, there was a ");
        assertThat(content(events, 0)).isEqualTo(plain);
        assertThat(server.model.lastRequest.stop()).containsExactly("tiny", "zzz");
    }

    @Test
    void severalChoicesStreamOneChoicePerChunkEachWithRoleAndFinish() throws Exception {
        server.model.differentTexts(true);
        String body = server.post("/v1/chat/completions",
                chat("\"n\":2,\"stream\":true,\"stream_options\":{\"include_usage\":true}")).body();
        List<JsonNode> events = events(body);

        JsonNode usage = events.getLast();
        assertThat(usage.get("choices")).isEmpty();
        assertThat(usage.get("usage").get("completion_tokens").asInt()).isEqualTo(13 + 15);
        List<JsonNode> chunks = events.subList(0, events.size() - 1);
        assertThat(chunks).allSatisfy(e -> assertThat(e.get("choices")).hasSize(1));
        for (int index = 0; index < 2; index++) {
            int i = index;
            List<JsonNode> mine = chunks.stream().map(e -> e.get("choices").get(0))
                    .filter(c -> c.get("index").asInt() == i).toList();
            assertThat(mine.getFirst().get("delta").toString())
                    .isEqualTo("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}");
            assertThat(mine.getLast().get("delta").toString()).isEqualTo("{}");
            assertThat(mine.getLast().get("finish_reason").asText()).isEqualTo("stop");
            assertThat(mine.subList(0, mine.size() - 1)).allSatisfy(c -> assertThat(c.get("finish_reason").isNull()).isTrue());
        }
        assertThat(content(events, 0)).isEqualTo(FakeTextGenerator.TEXT);
        assertThat(content(events, 1)).isEqualTo("Choice 1: " + FakeTextGenerator.TEXT);
    }

    @Test
    void severalChoicesNonStreamed() throws Exception {
        server.model.differentTexts(true);
        JsonNode body = TestServer.json(server.post("/v1/chat/completions", chat("\"n\":2")));

        assertThat(body.get("choices")).hasSize(2);
        assertThat(body.get("choices").get(1).get("index").asInt()).isEqualTo(1);
        assertThat(body.get("choices").get(1).get("message").get("content").asText())
                .isEqualTo("Choice 1: " + FakeTextGenerator.TEXT);
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(6);
        assertThat(server.model.lastRequest.n()).isEqualTo(2);
    }

    @Test
    void logprobsHaveOpenAisShape() throws Exception {
        JsonNode body = TestServer.json(server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"top_logprobs\":2,\"max_completion_tokens\":2")));

        JsonNode logprobs = body.get("choices").get(0).get("logprobs");
        assertThat(logprobs.get("refusal").isNull()).isTrue();
        assertThat(logprobs.get("content")).hasSize(2);
        JsonNode second = logprobs.get("content").get(1);
        assertThat(second.get("token").asText()).isEqualTo(" upon");
        assertThat(second.get("logprob").isNumber()).isTrue();
        assertThat(second.get("bytes").toString()).isEqualTo("[32,117,112,111,110]");
        assertThat(second.get("top_logprobs")).hasSize(2);
        assertThat(second.get("top_logprobs").get(1).toString())
                .isEqualTo("{\"token\":\" upon#1\",\"logprob\":-1.25,\"bytes\":[32,117,112,111,110,35,49]}");
        assertThat(server.model.lastRequest.logprobs()).isEqualTo(2);
    }

    @Test
    void streamedLogprobsRideOnContentChunks() throws Exception {
        List<JsonNode> events = events(server.post("/v1/chat/completions",
                chat("\"logprobs\":true,\"max_tokens\":2,\"stream\":true")).body());

        assertThat(events.get(0).get("choices").get(0).get("logprobs").isNull()).isTrue();
        JsonNode lp = events.get(1).get("choices").get(0).get("logprobs");
        assertThat(lp.get("content").get(0).get("token").asText()).isEqualTo("Once");
        assertThat(lp.get("content").get(0).get("top_logprobs")).isEmpty();
        assertThat(server.model.lastRequest.logprobs()).isZero();
    }

    @Test
    void withoutLogprobsTheEngineIsNotAskedForThem() throws Exception {
        server.post("/v1/chat/completions", chat(""));
        assertThat(server.model.lastRequest.logprobs()).isEqualTo(-1);
    }

    @Test
    void samplingParametersReachTheEngine() throws Exception {
        server.post("/v1/chat/completions", chat("\"temperature\":0.5,\"top_p\":0.9,\"seed\":42,"
                + "\"presence_penalty\":0.25,\"frequency_penalty\":-0.5,\"logit_bias\":{\"5\":-100,\"7\":2.5},"
                + "\"user\":\"someone\",\"store\":false,\"metadata\":{\"a\":\"b\"},\"response_format\":{\"type\":\"text\"},"
                + "\"tool_choice\":\"none\",\"tools\":[],\"parallel_tool_calls\":true,\"brand_new_field\":{\"x\":1}"));

        var sampling = server.model.lastRequest.sampling();
        assertThat(sampling.temperature()).isEqualTo(0.5f);
        assertThat(sampling.topP()).isEqualTo(0.9f);
        assertThat(sampling.seed()).isEqualTo(42L);
        assertThat(sampling.presencePenalty()).isEqualTo(0.25f);
        assertThat(sampling.frequencyPenalty()).isEqualTo(-0.5f);
        assertThat(sampling.logitBias()).isEqualTo(Map.of(5, -100f, 7, 2.5f));
    }

    @Test
    void defaultsAreOpenAis() throws Exception {
        server.post("/v1/chat/completions", chat(""));

        var request = server.model.lastRequest;
        assertThat(request.sampling().temperature()).isEqualTo(1f);
        assertThat(request.sampling().topP()).isEqualTo(1f);
        assertThat(request.sampling().seed()).isNull();
        assertThat(request.n()).isEqualTo(1);
        assertThat(request.stop()).isEmpty();
        assertThat(request.maxTokens()).isEqualTo(TestServer.CONTEXT - 6);
    }

    @Test
    void messagesReachTheTemplateWithDeveloperAsSystemAndPartsJoined() throws Exception {
        server.post("/v1/chat/completions", "{\"model\":\"fake-model\",\"messages\":["
                + "{\"role\":\"developer\",\"content\":\"Be terse.\"},"
                + "{\"role\":\"user\",\"name\":\"bob\",\"content\":[{\"type\":\"text\",\"text\":\"Hello\"},"
                + "{\"type\":\"text\",\"text\":\"there\"}]},"
                + "{\"role\":\"assistant\",\"content\":null},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"18C\"},"
                + "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"Sys\"}]}]}");

        assertThat(server.model.lastMessages).containsExactly(new ChatMessage("system", "Be terse."),
                new ChatMessage("user", "Hello\nthere"), new ChatMessage("assistant", ""),
                new ChatMessage("tool", "18C"), new ChatMessage("system", "Sys"));
    }

    @Test
    void maxTokensBeyondTheRoomLeftInTheContextIs400WithTheCounts() throws Exception {
        String prompt = "word ".repeat(58).trim(); // 1 + 1 + 58 = 60 prompt tokens of 64
        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("message").asText()).isEqualTo("This model's maximum context length is 64 tokens. However, "
                + "you requested 160 tokens (60 in the messages, 100 in the completion). Please reduce the length of "
                + "the messages or completion.");
        assertThat(error.get("param").asText()).isEqualTo("max_tokens");
        assertThat(server.model.generateCalls.get()).isZero();
    }

    @Test
    void withoutMaxTokensGenerationRunsToTheContextAndSaysLength() throws Exception {
        String prompt = "word ".repeat(58).trim(); // 60 prompt tokens of 64: room for 4
        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");

        JsonNode body = TestServer.json(response);
        assertThat(server.model.lastRequest.maxTokens()).isEqualTo(4);
        assertThat(body.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
        assertThat(body.get("choices").get(0).get("message").get("content").asText()).isEqualTo("Once upon a time,");
        assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(64);
    }

    @Test
    void promptThatFillsTheContextIsContextLengthExceeded() throws Exception {
        String prompt = "word ".repeat(62).trim(); // 64 prompt tokens of 64
        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("param").asText()).isEqualTo("messages");
        assertThat(error.get("code").isInt()).isTrue();
        assertThat(error.get("code").asInt()).isEqualTo(400);
        assertThat(error.get("message").asText()).contains("maximum context length is 64 tokens")
                .contains("resulted in 64 tokens");
        assertThat(server.model.generateCalls).hasValue(0);
    }

    @Test
    void conversationTheTemplateRejectsIsABadRequest() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"<reject>\"}]}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(response).get("error").get("message").asText()).contains("the template refuses this");
    }

    @Test
    void engineFailureBeforeAnyOutputIsA500EvenWhenStreaming() throws Exception {
        server.model.failAfterTokens(0);
        for (String extra : List.of("", "\"stream\":true")) {
            HttpResponse<String> response = server.post("/v1/chat/completions", chat(extra));

            assertThat(response.statusCode()).isEqualTo(500);
            assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                    v -> assertThat(v).startsWith("application/json"));
            JsonNode error = TestServer.json(response).get("error");
            assertThat(error.get("type").asText()).isEqualTo("internal_error");
            assertThat(error.get("code").asInt()).isEqualTo(500);
            assertThat(error.get("message").asText()).contains(response.headers().firstValue("x-request-id").orElseThrow());
        }
    }

    @Test
    void engineFailureMidStreamIsAnErrorEventAndTheStreamEnds() throws Exception {
        server.model.failAfterTokens(2);
        HttpResponse<String> response = server.post("/v1/chat/completions", chat("\"stream\":true"));

        assertThat(response.statusCode()).isEqualTo(200);
        List<JsonNode> events = events(response.body());
        assertThat(content(events.subList(0, events.size() - 1), 0)).isEqualTo("Once upon");
        JsonNode error = events.getLast().get("error");
        assertThat(error.get("type").asText()).isEqualTo("internal_error");
        assertThat(error.get("code").asInt()).isEqualTo(500);
        assertThat(response.body()).doesNotContain("[DONE]").endsWith("}}\n\n");
    }

    /** The JSON events of a stream, checking the framing on the way: one data line per event. */
    static List<JsonNode> events(String body) throws Exception {
        assertThat(body).endsWith("\n\n");
        List<JsonNode> events = new ArrayList<>();
        for (String event : body.split("\n\n")) {
            assertThat(event).startsWith("data: ").doesNotContain("\n");
            String data = event.substring("data: ".length());
            if (data.equals("[DONE]")) continue;
            events.add(TestServer.MAPPER.readTree(data));
        }
        return events;
    }

    static String content(List<JsonNode> events, int index) {
        StringBuilder text = new StringBuilder();
        for (JsonNode e : events) {
            for (JsonNode c : e.get("choices")) {
                if (c.get("index").asInt() == index && c.get("delta").has("content")) {
                    text.append(c.get("delta").get("content").asText());
                }
            }
        }
        return text.toString();
    }
}
