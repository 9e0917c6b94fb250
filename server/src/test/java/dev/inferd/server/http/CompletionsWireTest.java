package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Legacy {@code POST /v1/completions} over raw HTTP. */
class CompletionsWireTest {

    private static final String LONG_TEXT = "one two three four five six seven eight nine ten eleven twelve thirteen "
            + "fourteen fifteen sixteen seventeen eighteen nineteen twenty";

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void nonStreamingDefaultsToSixteenTokens() throws Exception {
        server.model.text(LONG_TEXT);
        HttpResponse<String> response = server.post("/v1/completions", "{\"model\":\"fake-model\",\"prompt\":\"Count with me\"}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = TestServer.json(response);
        assertThat(body.get("id").asText()).startsWith("cmpl-");
        assertThat(body.get("object").asText()).isEqualTo("text_completion");
        assertThat(body.get("created").isIntegralNumber()).isTrue();
        assertThat(body.get("choices").get(0).toString()).isEqualTo("{\"text\":\"" + String.join(" ",
                List.of(LONG_TEXT.split(" ")).subList(0, 16)) + "\",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}");
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(4);
        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(16);
        assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(20);
        assertThat(server.model.lastRequest.maxTokens()).isEqualTo(16);
    }

    @Test
    void echoPrependsThePrompt() throws Exception {
        JsonNode body = TestServer.json(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":\"Story: \",\"echo\":true,\"max_tokens\":2}"));

        assertThat(body.get("choices").get(0).get("text").asText()).isEqualTo("Story: Once upon");
    }

    @Test
    void severalPromptsTimesNGiveIndexesPromptTimesNPlusI() throws Exception {
        server.model.differentTexts(true);
        JsonNode body = TestServer.json(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":[\"a\",\"b c\"],\"n\":2,\"max_tokens\":3}"));

        JsonNode choices = body.get("choices");
        assertThat(choices).hasSize(4);
        for (int i = 0; i < 4; i++) assertThat(choices.get(i).get("index").asInt()).isEqualTo(i);
        assertThat(choices.get(1).get("text").asText()).isEqualTo("Choice 1: Once");
        assertThat(choices.get(2).get("text").asText()).isEqualTo("Once upon a");
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(2 + 3);
        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(12);
        assertThat(server.model.generateCalls).hasValue(2);
    }

    @Test
    void streamHasTextCompletionChunksFinishUsageAndDone() throws Exception {
        HttpResponse<String> response = server.post("/v1/completions", "{\"model\":\"fake-model\",\"prompt\":\"Hi\","
                + "\"max_tokens\":2,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("text/event-stream"));
        String body = response.body();
        JsonNode first = TestServer.MAPPER.readTree(body.substring("data: ".length(), body.indexOf('\n')));
        String prefix = "data: {\"id\":\"" + first.get("id").asText() + "\",\"object\":\"text_completion\",\"created\":"
                + first.get("created").asLong() + ",\"model\":\"fake-model\",\"system_fingerprint\":\""
                + first.get("system_fingerprint").asText() + "\",";
        assertThat(body).isEqualTo(
                prefix + "\"choices\":[{\"text\":\"Once\",\"index\":0,\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"text\":\" upon\",\"index\":0,\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + prefix + "\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
                + prefix + "\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":2,\"total_tokens\":4,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n"
                + "data: [DONE]\n\n");
        assertThat(first.get("id").asText()).startsWith("cmpl-");
    }

    @Test
    void streamWithSeveralPromptsAndEcho() throws Exception {
        List<JsonNode> events = ChatCompletionsWireTest.events(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":[\"A:\",\"B:\"],\"echo\":true,\"max_tokens\":1,\"stream\":true}").body());

        assertThat(events).allSatisfy(e -> {
            assertThat(e.get("object").asText()).isEqualTo("text_completion");
            assertThat(e.has("usage")).isFalse();
        });
        assertThat(text(events, 0)).isEqualTo("A:Once");
        assertThat(text(events, 1)).isEqualTo("B:Once");
        assertThat(events.stream().filter(e -> !e.get("choices").get(0).get("finish_reason").isNull())).hasSize(2);
    }

    @Test
    void logprobsAreTheLegacyParallelArrays() throws Exception {
        JsonNode body = TestServer.json(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":\"Hi\",\"max_tokens\":3,\"logprobs\":2}"));

        JsonNode lp = body.get("choices").get(0).get("logprobs");
        assertThat(lp.get("tokens").toString()).isEqualTo("[\"Once\",\" upon\",\" a\"]");
        assertThat(lp.get("token_logprobs").toString()).isEqualTo("[0.0,-0.25,-0.5]");
        assertThat(lp.get("top_logprobs").get(1).toString()).isEqualTo("{\" upon\":-0.25,\" upon#1\":-1.25}");
        assertThat(lp.get("text_offset").toString()).isEqualTo("[0,4,9]");
        assertThat(server.model.lastRequest.logprobs()).isEqualTo(2);
    }

    @Test
    void streamedLogprobsKeepCountingOffsets() throws Exception {
        List<JsonNode> events = ChatCompletionsWireTest.events(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":\"Hi\",\"max_tokens\":3,\"logprobs\":0,\"stream\":true}").body());

        assertThat(events.get(2).get("choices").get(0).get("logprobs").get("text_offset").toString()).isEqualTo("[9]");
        assertThat(events.get(2).get("choices").get(0).get("logprobs").get("top_logprobs").toString()).isEqualTo("[{}]");
    }

    @Test
    void maxTokensZeroGeneratesNothing() throws Exception {
        JsonNode body = TestServer.json(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":\"Hi there\",\"max_tokens\":0,\"echo\":true}"));

        assertThat(body.get("choices").get(0).get("text").asText()).isEqualTo("Hi there");
        assertThat(body.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(3);
        assertThat(body.get("usage").get("completion_tokens").asInt()).isZero();
        assertThat(server.model.generateCalls).hasValue(0);

        List<JsonNode> events = ChatCompletionsWireTest.events(server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":\"Hi\",\"max_tokens\":0,\"stream\":true,"
                        + "\"stream_options\":{\"include_usage\":true}}").body());
        assertThat(events).hasSize(2);
        assertThat(events.get(0).get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
        assertThat(events.get(1).get("usage").get("prompt_tokens").asInt()).isEqualTo(2);
    }

    @Test
    void promptTooLongForTheContextIs400() throws Exception {
        HttpResponse<String> response = server.post("/v1/completions",
                "{\"model\":\"fake-model\",\"prompt\":[\"ok\",\"" + "w ".repeat(70) + "\"]}");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("param").asText()).isEqualTo("prompt");
        assertThat(error.get("message").asText()).contains("maximum context length is 64 tokens").contains("71 tokens");
        assertThat(server.model.generateCalls).hasValue(0);
    }

    private static String text(List<JsonNode> events, int index) {
        StringBuilder text = new StringBuilder();
        for (JsonNode e : events) {
            JsonNode c = e.get("choices").get(0);
            if (c.get("index").asInt() == index) text.append(c.get("text").asText());
        }
        return text.toString();
    }
}
