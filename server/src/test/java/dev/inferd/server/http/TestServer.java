package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** An {@link InferdServer} on a free port with two fake models, and a raw HTTP client for it. */
final class TestServer implements AutoCloseable {

    static final String MODEL = "fake-model";
    /** An id with the characters that break naive path routing. */
    static final String ODD_MODEL = "org/tiny-model:Q8_0";
    static final int CONTEXT = 64;

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** Jetty announces every start and stop at INFO; a strong reference keeps the level set. */
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    final FakeTextGenerator model = new FakeTextGenerator(MODEL, CONTEXT);
    final FakeTextGenerator oddModel = new FakeTextGenerator(ODD_MODEL, 4096);
    final ModelRegistry registry;
    final InferdServer server;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    TestServer() {
        this(ServerOptions.defaults());
    }

    /** The two fake models in a registry the test may change (to add a loading model, say). */
    TestServer(ServerOptions options) {
        registry = new ModelRegistry();
        registry.ready(MODEL, model);
        registry.ready(ODD_MODEL, oddModel);
        server = InferdServer.start("127.0.0.1", 0, registry, options);
    }

    String base() {
        return "http://127.0.0.1:" + server.port();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return post(path, json, "application/json");
    }

    HttpResponse<String> post(String path, String body, String contentType) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", contentType)
                        .header("Authorization", "Bearer sk-anything")
                        .header("OpenAI-Organization", "org-test")
                        .header("X-Stainless-Lang", "java")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return MAPPER.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
