package dev.inferd.server.http;

import dev.inferd.server.metrics.EngineStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /metrics}: Prometheus text with request, token, latency, back-pressure and engine figures. */
class MetricsTest {

    private final TestServer server = new TestServer(ServerOptions.defaults().withMaxInFlightPerModel(4));

    @AfterEach
    void stop() {
        server.close();
    }

    private String scrape() throws Exception {
        HttpResponse<String> response = server.get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        return response.body();
    }

    /** The value of the one sample whose line starts with {@code name{} and carries all the labels. */
    private static Optional<Double> sample(String body, String name, String... labels) {
        List<String> lines = body.lines()
                .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> Arrays.stream(labels).allMatch(l::contains))
                .toList();
        assertThat(lines).as(name + " " + Arrays.toString(labels)).hasSizeLessThanOrEqualTo(1);
        return lines.stream().findFirst().map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)));
    }

    @Test
    void countsRequestsTokensAndTimeToFirstToken() throws Exception {
        server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"Hi there\"}]}");
        server.post("/v1/chat/completions", "{\"model\":\"fake-model\",\"max_tokens\":3,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        server.get("/v1/models");
        server.get("/v1/models/no-such-model");
        server.get("/what/ever/1234");

        String body = scrape();

        assertThat(sample(body, "inferd_http_requests_seconds_count",
                "route=\"/v1/chat/completions\"", "method=\"POST\"", "status=\"200\"")).hasValue(2.0);
        assertThat(sample(body, "inferd_http_requests_seconds_count", "route=\"/v1/models\"", "status=\"200\""))
                .hasValue(1.0);
        assertThat(sample(body, "inferd_http_requests_seconds_count", "route=\"/v1/models/{id}\"", "status=\"404\""))
                .hasValue(1.0);
        assertThat(sample(body, "inferd_http_requests_seconds_count", "route=\"unmatched\"", "status=\"404\""))
                .hasValue(1.0);
        assertThat(sample(body, "inferd_http_requests_seconds_bucket", "route=\"/v1/chat/completions\"",
                "status=\"200\"", "le=\"+Inf\"")).hasValue(2.0);
        // The scrape itself is in flight while it renders.
        assertThat(sample(body, "inferd_http_requests_in_flight")).hasValue(1.0);
        assertThat(sample(body, "inferd_model_requests_in_flight", "model=\"fake-model\"")).hasValue(0.0);

        assertThat(sample(body, "inferd_completion_tokens_total", "model=\"fake-model\"")).hasValue(8.0);
        // Prompt tokens of the fake: BOS + per message 1 + words: 1 + 1 + 2 and 1 + 1 + 1.
        assertThat(sample(body, "inferd_prompt_tokens_total", "model=\"fake-model\"")).hasValue(7.0);
        assertThat(sample(body, "inferd_time_to_first_token_seconds_count", "model=\"fake-model\"")).hasValue(2.0);
        assertThat(sample(body, "inferd_generation_seconds_count", "model=\"fake-model\"")).hasValue(2.0);
        assertThat(body).contains("# HELP inferd_time_to_first_token_seconds", "jvm_memory_used_bytes");
    }

    @Test
    void countsRejectedRequests() throws Exception {
        server.model.busy(2);
        server.post("/v1/chat/completions", "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        server.registry.loading("later-model");
        server.post("/v1/completions", "{\"model\":\"later-model\",\"prompt\":\"x\"}");

        String body = scrape();

        assertThat(sample(body, "inferd_requests_rejected_total", "status=\"429\"", "reason=\"rate_limit_exceeded\""))
                .hasValue(1.0);
        assertThat(sample(body, "inferd_requests_rejected_total", "status=\"503\"", "reason=\"model_loading\""))
                .hasValue(1.0);
        assertThat(sample(body, "inferd_http_requests_seconds_count", "route=\"/v1/chat/completions\"",
                "status=\"429\"")).hasValue(1.0);
    }

    @Test
    void publishesEngineStatsOfModelsThatHaveThem() throws Exception {
        server.registry.loading("batched-model");
        assertThat(scrape()).doesNotContain("inferd_engine_");

        int[] queued = {3};
        EngineStats stats = () -> new EngineStats.Snapshot(queued[0], 2, 40, 128, 16);
        server.registry.ready("batched-model", new FakeTextGenerator("batched-model", 64), stats);

        String body = scrape();
        assertThat(sample(body, "inferd_engine_queued_requests", "model=\"batched-model\"")).hasValue(3.0);
        assertThat(sample(body, "inferd_engine_active_sequences", "model=\"batched-model\"")).hasValue(2.0);
        assertThat(sample(body, "inferd_engine_kv_blocks_used", "model=\"batched-model\"")).hasValue(40.0);
        assertThat(sample(body, "inferd_engine_kv_blocks_capacity", "model=\"batched-model\"")).hasValue(128.0);
        assertThat(sample(body, "inferd_engine_kv_blocks_cached", "model=\"batched-model\"")).hasValue(16.0);
        assertThat(body).doesNotContain("inferd_engine_queued_requests{model=\"fake-model\"}");
        // the gauges of the Gateway API Inference Extension's model-server protocol, under vLLM's names
        assertThat(sample(body, "vllm:num_requests_waiting", "model_name=\"batched-model\"")).hasValue(3.0);
        assertThat(sample(body, "vllm:num_requests_running", "model_name=\"batched-model\"")).hasValue(2.0);
        assertThat(sample(body, "vllm:kv_cache_usage_perc", "model_name=\"batched-model\"")).hasValue(40.0 / 128);

        queued[0] = 0;
        assertThat(sample(scrape(), "inferd_engine_queued_requests", "model=\"batched-model\"")).hasValue(0.0);
    }

    @Test
    void metricsAnswersGetOnly() throws Exception {
        assertThat(server.post("/metrics", "{}").statusCode()).isEqualTo(405);
    }

    @Test
    void unknownMethodsShareOneLabelSoTheSeriesStayBounded() throws Exception {
        for (int i = 0; i < 50; i++) {
            String method = "M" + Integer.toHexString(i * 7919) + "X".repeat(i);
            RawHttp.exchange(server.server.port(), method + " /v1/nothing-" + i + " HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        String body = scrape();

        assertThat(body).contains("method=\"OTHER\"").doesNotContain("M0X").doesNotContain("nothing-");
        long series = body.lines().filter(l -> l.startsWith("inferd_http_requests_seconds_count")).count();
        assertThat(series).isLessThan(10);
    }

    @Test
    void aStreamWhoseClientLeftIsCountedAs499() throws Exception {
        server.oddModel.text("word ".repeat(2000)).delayMillis(5);
        String body = "{\"model\":\"org/tiny-model:Q8_0\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}]}";
        try (var socket = new java.net.Socket("127.0.0.1", server.server.port())) {
            socket.getOutputStream().write(RawHttp.post("/v1/chat/completions",
                    body.getBytes(java.nio.charset.StandardCharsets.UTF_8), ""));
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream()));
            String line;
            while ((line = in.readLine()) != null && !line.contains("word")) {
                // headers and the first events
            }
        }
        assertThat(server.oddModel.cancelSeen.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + 5_000_000_000L;
        String scraped;
        do {
            scraped = scrape();
        } while (!scraped.contains("status=\"499\"") && System.nanoTime() < deadline);
        assertThat(scraped).contains("status=\"499\"");
    }
}
