package dev.inferd.app.loadtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Sends one streamed chat or completions request to an OpenAI-compatible server and times its
 * chunks as they arrive.
 */
public final class StreamingClient {

    /** Which OpenAI endpoint the load goes to. */
    public enum Endpoint {
        chat("/chat/completions"), completions("/completions");

        final String path;

        Endpoint(String path) {
            this.path = path;
        }
    }

    /**
     * @param ignoreEos also send {@code ignore_eos} and {@code min_tokens} (llama.cpp's and vLLM's
     *                  fields, ignored by inferd) so that every request generates all its tokens
     */
    public record Settings(String baseUrl, String model, Endpoint endpoint, int maxTokens, boolean ignoreEos,
                           Duration timeout, String apiKey) {

        /** With no API key of its own (a placeholder the local servers ignore). */
        public Settings(String baseUrl, String model, Endpoint endpoint, int maxTokens, boolean ignoreEos, Duration timeout) {
            this(baseUrl, model, endpoint, maxTokens, ignoreEos, timeout, null);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final Settings settings;
    private final URI uri;
    /** A comma-separated model is several models, taken in turn by successive requests. */
    private final String[] models;
    private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();

    public StreamingClient(HttpClient http, Settings settings) {
        this.http = http;
        this.settings = settings;
        this.models = settings.model().split(",");
        this.uri = URI.create(settings.baseUrl() + settings.endpoint().path);
    }

    String body(String prompt) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", models[Math.floorMod(next.getAndIncrement(), models.length)]);
        if (settings.endpoint() == Endpoint.chat) {
            body.putArray("messages").addObject().put("role", "user").put("content", prompt);
        } else {
            body.put("prompt", prompt);
        }
        body.put("max_tokens", settings.maxTokens());
        body.put("temperature", 0);
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        if (settings.ignoreEos()) {
            body.put("ignore_eos", true);
            body.put("min_tokens", settings.maxTokens());
        }
        return body.toString();
    }

    /** Runs one request; failures are returned as a sample, never thrown. */
    public RequestSample send(String prompt) {
        long start = System.nanoTime();
        long deadline = start + settings.timeout().toNanos();
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + (settings.apiKey() == null ? "sk-bench" : settings.apiKey()))
                .POST(HttpRequest.BodyPublishers.ofString(body(prompt)))
                .build();
        try {
            HttpResponse<Stream<String>> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofLines());
            } catch (HttpTimeoutException timedOut) {
                throw timedOut; // no answer in time: sent again, it would only wait as long once more
            } catch (IOException noAnswer) {
                // Failed before any response: most often a kept-alive connection the server had closed
                // while it sat in the pool (llama-server closes idle ones after 5 s, so the first requests
                // of a concurrency level failed). The pool drops that connection; once more on a new one.
                response = http.send(request, HttpResponse.BodyHandlers.ofLines());
            }
            try (Stream<String> lines = response.body()) {
                if (response.statusCode() != 200) {
                    String text = lines.limit(20).collect(Collectors.joining(" "));
                    return RequestSample.failed("HTTP " + response.statusCode() + ": " + errorMessage(text),
                            System.nanoTime() - start);
                }
                return read(lines.iterator(), start, deadline);
            }
        } catch (IOException | RuntimeException e) {
            return RequestSample.failed(e.getClass().getSimpleName() + ": " + e.getMessage(), System.nanoTime() - start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RequestSample.failed("interrupted", System.nanoTime() - start);
        }
    }

    private RequestSample read(Iterator<String> lines, long start, long deadline) throws IOException {
        long first = -1;
        long previous = -1;
        List<Long> gaps = new ArrayList<>();
        int chunks = 0;
        int usageTokens = -1;
        boolean done = false;
        while (lines.hasNext()) {
            String line = lines.next();
            long now = System.nanoTime();
            if (now > deadline) return RequestSample.failed("timed out mid-stream", now - start);
            if (!line.startsWith("data:")) continue;
            String data = line.substring(5).trim();
            if (data.equals("[DONE]")) {
                done = true;
                break;
            }
            JsonNode event = JSON.readTree(data);
            if (event.has("error")) {
                return RequestSample.failed("error event: " + event.path("error").path("message").asText(), now - start);
            }
            JsonNode usage = event.get("usage");
            if (usage != null && usage.isObject()) usageTokens = usage.path("completion_tokens").asInt(-1);
            if (hasText(event)) {
                chunks++;
                if (first < 0) {
                    first = now;
                } else {
                    gaps.add(now - previous);
                }
                previous = now;
            }
        }
        long end = System.nanoTime();
        if (!done) return RequestSample.failed("stream ended without [DONE]", end - start);
        return new RequestSample(null, first < 0 ? -1 : first - start, gaps, usageTokens >= 0 ? usageTokens : chunks,
                end - start);
    }

    private boolean hasText(JsonNode event) {
        for (JsonNode choice : event.path("choices")) {
            String text = settings.endpoint() == Endpoint.chat
                    ? choice.path("delta").path("content").asText("")
                    : choice.path("text").asText("");
            if (!text.isEmpty()) return true;
        }
        return false;
    }

    private static String errorMessage(String body) {
        try {
            JsonNode message = JSON.readTree(body).path("error").path("message");
            if (message.isTextual()) return message.asText();
        } catch (IOException | RuntimeException e) {
            // not an OpenAI error body; show it as it is
        }
        return body.length() > 200 ? body.substring(0, 200) + "..." : body;
    }
}
