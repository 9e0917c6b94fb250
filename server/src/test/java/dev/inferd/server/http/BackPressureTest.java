package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A busy engine, a full server and a model still loading all answer with a retryable status, never a 500. */
class BackPressureTest {

    private static final String CHAT = "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final String STREAMED_CHAT =
            "{\"model\":\"fake-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private TestServer server = new TestServer(ServerOptions.defaults().withMaxInFlightPerModel(2));

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void busyEngineIs429WithRetryAfter() throws Exception {
        server.model.busy(3);
        for (String body : List.of(CHAT, STREAMED_CHAT)) {
            HttpResponse<String> response = server.post("/v1/chat/completions", body);

            assertThat(response.statusCode()).as(body).isEqualTo(429);
            assertThat(response.headers().firstValue("retry-after")).hasValue("3");
            assertThat(response.headers().firstValue("x-should-retry")).hasValue("true");
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            JsonNode error = TestServer.json(response).get("error");
            assertThat(error.get("type").asText()).isEqualTo("rate_limit_error");
            assertThat(error.get("code").asInt()).isEqualTo(429);
            assertThat(error.get("message").asText()).contains("busy", "queue is full");
            assertThat(error.has("param")).isTrue();
        }
        HttpResponse<String> completion = server.post("/v1/completions", "{\"model\":\"fake-model\",\"prompt\":\"x\"}");
        assertThat(completion.statusCode()).isEqualTo(429);
    }

    @Test
    void retryAfterStaysBetweenOneAndThirtySeconds() throws Exception {
        server.model.busy(0);
        assertThat(server.post("/v1/chat/completions", CHAT).headers().firstValue("retry-after")).hasValue("1");
        server.model.busy(3600);
        assertThat(server.post("/v1/chat/completions", CHAT).headers().firstValue("retry-after")).hasValue("30");
    }

    @Test
    void theOpenAiClientSeesARateLimitException() {
        server.model.busy(1);
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(server.base() + "/v1").apiKey("sk-local")
                .maxRetries(0).timeout(Duration.ofSeconds(10)).build();
        try {
            assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model(TestServer.MODEL).addUserMessage("Hi").build()))
                    .isInstanceOfSatisfying(RateLimitException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(429);
                        assertThat(e.headers().values("retry-after")).containsExactly("1");
                    });
        } finally {
            client.close();
        }
    }

    @Test
    void aFloodBeyondTheInFlightCapGetsOnly200sAnd429s() throws Exception {
        server.model.delayMillis(20);
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String body = i % 2 == 0 ? CHAT : STREAMED_CHAT;
            responses.add(server.http.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int ok = 0;
        int limited = 0;
        for (var future : responses) {
            HttpResponse<String> response = future.get();
            assertThat(response.statusCode()).as(response.body()).isIn(200, 429);
            if (response.statusCode() == 200) {
                ok++;
            } else {
                limited++;
                assertThat(response.headers().firstValue("retry-after")).hasValue("1");
                assertThat(TestServer.json(response).get("error").get("message").asText())
                        .contains("limit of 2 concurrent requests");
            }
        }
        assertThat(ok).isGreaterThanOrEqualTo(2);
        assertThat(limited).isGreaterThanOrEqualTo(1);
        // A refused request never reached the engine.
        assertThat(server.model.generateCalls.get()).isEqualTo(ok);

        // The slots come back: once the flood is over, requests are served again.
        assertThat(server.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
    }

    @Test
    void aModelStillLoadingIs503WithRetryAfterUntilItIsReady() throws Exception {
        server.registry.loading("later-model");
        String body = "{\"model\":\"later-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

        HttpResponse<String> response = server.post("/v1/chat/completions", body);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("retry-after")).hasValue("2");
        assertThat(response.headers().firstValue("x-should-retry")).hasValue("true");
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("type").asText()).isEqualTo("service_unavailable_error");
        assertThat(error.get("code").asInt()).isEqualTo(503);
        assertThat(error.get("message").asText()).contains("`later-model` is still loading");
        assertThat(server.get("/v1/models/later-model").statusCode()).isEqualTo(503);
        assertThat(server.get("/v1/models").body()).doesNotContain("later-model");

        server.registry.ready("later-model", new FakeTextGenerator("later-model", 64));

        assertThat(server.post("/v1/chat/completions", body).statusCode()).isEqualTo(200);
        assertThat(server.get("/v1/models").body()).contains("later-model");
    }

    @Test
    void aModelThatFailedToLoadIs503WithoutRetry() throws Exception {
        server.registry.loading("broken-model");
        server.registry.failed("broken-model", "the file is truncated");

        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"broken-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("retry-after")).isEmpty();
        assertThat(response.headers().firstValue("x-should-retry")).hasValue("false");
        assertThat(TestServer.json(response).get("error").get("message").asText()).contains("the file is truncated");
    }

    @Test
    void aServerWhoseOnlyModelIsLoadingStartsAndAnswers503() throws Exception {
        server.close();
        ModelRegistry registry = new ModelRegistry();
        registry.loading("slow-model");
        try (InferdServer only = InferdServer.start("127.0.0.1", 0, registry, ServerOptions.defaults())) {
            HttpResponse<String> response = server.http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + only.port() + "/v1/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"slow-model\",\"prompt\":\"x\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(503);
        }
        server = new TestServer();
    }
}
