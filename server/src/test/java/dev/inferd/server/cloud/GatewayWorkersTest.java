package dev.inferd.server.cloud;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.PermissionDeniedException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A gateway and two workers in one JVM on one SQLite database: requests routed by the registry, streams relayed,
 * usage recorded by the gateway, a model loaded once, a worker that goes away replaced by the other.
 */
class GatewayWorkersTest extends GatewayWorkersFixture {

    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeEach
    void deploy() {
        deploy(null);
    }

    private OpenAIClient client(String secret) {
        var client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + gateway.port() + "/v1").apiKey(secret)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(30)).build();
        open.add(client::close);
        return client;
    }

    private static ChatCompletionCreateParams chat(String model) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage("Tell me a story").build();
    }

    /** The account's records as they are now: an answer's record is committed before its final bytes leave the gateway. */
    private List<UsageRecord> records() {
        return new UsageStore(db).list(UsageFilter.account(accountId), 1000);
    }

    @Test
    void answersComeFromAWorkerAndTheGatewayRecordsTheirTokens() throws Exception {
        var answer = client(key).chat().completions().create(chat("model-01"));
        assertThat(answer.choices().getFirst().message().content()).hasValue(EchoModel.ANSWER);
        assertThat(openers.stream().mapToInt(o -> o.loads.size()).sum()).as("loaded once, on one worker").isEqualTo(1);

        var streamed = new StringBuilder();
        try (var stream = client(key).chat().completions().createStreaming(chat("model-01"))) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(streamed::append)));
        }
        assertThat(streamed.toString()).isEqualTo(EchoModel.ANSWER);
        assertThat(openers.stream().mapToInt(o -> o.loads.size()).sum()).isEqualTo(1);

        List<UsageRecord> records = records();
        assertThat(records).hasSize(2).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.model()).isEqualTo("model-01");
            assertThat(r.completionTokens()).isEqualTo(EchoModel.ANSWER_TOKENS);
            assertThat(r.promptTokens()).isPositive();
        });
    }

    @Test
    void aStreamWithoutIncludeUsageGetsNoUsageChunkButIsBilled() throws Exception {
        var response = post("{\"model\":\"model-02\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("\"usage\":{").endsWith("data: [DONE]\n\n");
        assertThat(records()).singleElement().satisfies(r -> assertThat(r.completionTokens()).isEqualTo(EchoModel.ANSWER_TOKENS));
    }

    @Test
    void requestsForAModelBeingLoadedWaitForTheOneLoad() throws Exception {
        var gates = openers.stream().map(o -> o.gate("model-09")).toList();
        var answers = new ArrayList<java.util.concurrent.Future<String>>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 4; i++) {
                answers.add(pool.submit(() -> client(key).chat().completions().create(chat("model-09")).choices().getFirst()
                        .message().content().orElseThrow()));
            }
            Thread.sleep(500);
            gates.forEach(java.util.concurrent.CountDownLatch::countDown);
            for (var answer : answers) assertThat(answer.get()).isEqualTo(EchoModel.ANSWER);
        }
        assertThat(openers.stream().mapToInt(o -> o.loads.size()).sum()).isEqualTo(1);
    }

    @Test
    void aKeyOutsideItsModelScopeIsRefusedAtTheGatewayAndNoWorkerLoadsAnything() {
        var scoped = gateway.accounts().createKey(accountId,
                new KeySpec("scoped", new KeyScopes(List.of("model-03"), List.of()), null, null), TEST);
        assertThatThrownBy(() -> client(scoped.secret()).chat().completions().create(chat("model-04")))
                .isInstanceOf(PermissionDeniedException.class);
        assertThat(openers).allSatisfy(o -> assertThat(o.loads).isEmpty());
    }

    @Test
    void twoModelsMayLandOnDifferentWorkersAndAreBothServed() {
        openers.get(0).sizes.put("model-05", 1L << 39);
        openers.get(1).sizes.put("model-05", 1L << 39);
        assertThat(client(key).chat().completions().create(chat("model-05")).choices()).hasSize(1);
        // the worker that loaded model-05 has less budget left: the next model goes to the other
        awaitRegistryShows("model-05");
        assertThat(client(key).chat().completions().create(chat("model-06")).choices()).hasSize(1);
        assertThat(openers.get(0).loads).hasSize(1);
        assertThat(openers.get(1).loads).hasSize(1);
        assertThat(openers.get(0).loads).isNotEqualTo(openers.get(1).loads);
    }

    @Test
    void aWorkerThatGoesAwayIsReplacedByTheOther() throws Exception {
        assertThat(client(key).chat().completions().create(chat("model-07")).choices()).hasSize(1);
        int first = openers.get(0).loads.isEmpty() ? 1 : 0;
        workers.get(first).close();
        for (int i = 0; i < 3; i++) {
            assertThat(client(key).chat().completions().create(chat("model-07")).choices().getFirst().message().content())
                    .hasValue(EchoModel.ANSWER);
        }
        assertThat(openers.get(1 - first).loads).containsExactly("model-07");
    }

    @Test
    void aStreamCutByItsWorkerEndsWithAnErrorEventAndNoDone() throws Exception {
        openers.forEach(o -> o.slow.add("model-08"));
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"model-08\",\"stream\":true,\"max_tokens\":1000,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build();
        HttpResponse<java.io.InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        var lines = new ArrayList<String>();
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (int i = 0; i < 6; i++) lines.add(reader.readLine());
            int serving = openers.get(0).loads.isEmpty() ? 1 : 0;
            workers.get(serving).close();
            String line;
            while ((line = reader.readLine()) != null) lines.add(line);
        }
        String last = lines.stream().filter(l -> l.startsWith("data: ")).reduce((a, b) -> b).orElseThrow();
        assertThat(last).contains("\"error\"").contains("\"code\":502");
        assertThat(lines).doesNotContain("data: [DONE]");
    }

    @Test
    void workersServeGatewaysOnlyAndEveryServerAnswersItsProbes() throws Exception {
        int workerPort = workers.get(0).port();
        var direct = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + workerPort + "/v1/models")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(direct.statusCode()).isEqualTo(401);
        for (int port : new int[]{workerPort, gateway.port()}) {
            assertThat(get(port, "/health").statusCode()).isEqualTo(200);
            var ready = get(port, "/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        }
        workers.get(0).drain(Duration.ofSeconds(1));
        assertThat(get(workerPort, "/ready").statusCode()).isEqualTo(503);
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The access log's line of a forwarded request shows the tokens the worker counted, as the worker's own line does. */
    @Test
    void theAccessLogOfAForwardedRequestShowsItsTokens() throws Exception {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        var access = java.util.logging.Logger.getLogger("inferd.access");
        var handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getMessage().contains(" POST /v1/chat/completions ")) lines.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        access.addHandler(handler);
        try {
            client(key).chat().completions().create(chat("model-01"));
            try (var stream = client(key).chat().completions().createStreaming(chat("model-01"))) {
                stream.stream().forEach(chunk -> { });
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (lines.size() < 4 && System.nanoTime() < deadline) Thread.sleep(20);
        } finally {
            access.removeHandler(handler);
        }
        // a worker's line and the gateway's for each request (one JVM, one logger)
        assertThat(lines).hasSize(4).allSatisfy(line -> assertThat(line)
                .matches("req_\\w+ POST /v1/chat/completions 200 tokens=\\d+\\+" + EchoModel.ANSWER_TOKENS + " \\d+ms"));
    }

    /**
     * A client that asks for a whole (non-streamed) answer and leaves while the worker computes it: nothing is written
     * to it until the answer is there, so the gateway's watch of its connection sees it go and closes the request to
     * the worker, whose generation stops then, not after its 1000 tokens (20 s of the slow model).
     */
    @Test
    void aClientThatLeavesWhileItsWholeAnswerIsComputedStopsTheGenerationOnTheWorker() throws Exception {
        openers.forEach(o -> o.slow.add("model-08"));
        byte[] body = "{\"model\":\"model-08\",\"max_tokens\":1000,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        EchoModel model;
        try (var socket = new java.net.Socket("127.0.0.1", gateway.port())) {
            var out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            model = awaitGenerating("model-08");
        } // the client leaves
        long left = System.nanoTime();
        var ended = model.ended.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(ended).as("the worker's generation ended within 10 s of the client's departure").isNotNull();
        assertThat(ended.completionTokens()).isLessThan(1000);
        System.out.printf("the generation stopped %d ms after the client left, at %d tokens%n",
                (System.nanoTime() - left) / 1_000_000, ended.completionTokens());
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (records().isEmpty() && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(records()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(499);
            assertThat(r.model()).isEqualTo("model-08");
        });
    }

    /** The model a worker opened for {@code id}, once one of its generations has begun. */
    private EchoModel awaitGenerating(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            for (FakeOpener opener : openers) {
                EchoModel model = opener.opened.get(id);
                if (model != null && model.started.get() > 0) return model;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(id + " never began a generation on a worker");
    }

    private HttpResponse<String> post(String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void awaitRegistryShows(String model) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            directory.refresh();
            if (directory.live().stream().anyMatch(w -> w.models().contains(model))) return;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("the registry never showed " + model);
    }
}
