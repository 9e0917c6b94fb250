package dev.inferd.server.http;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /health} says the process answers; {@code GET /ready} says whether its models can be served. */
class ProbesTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void readyOnceEveryModelIsLoadedHealthyAllAlong() throws Exception {
        var registry = new ModelRegistry();
        registry.loading("later-model");
        try (var server = InferdServer.start("127.0.0.1", 0, registry, ServerOptions.defaults())) {
            assertThat(get(server, "/health").statusCode()).isEqualTo(200);
            var notReady = get(server, "/ready");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).contains("later-model is loading");

            registry.ready("later-model", new FakeTextGenerator("later-model", 64));
            var ready = get(server, "/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");

            registry.failed("other-model", "bad file");
            assertThat(get(server, "/ready").body()).contains("other-model failed to load");
            assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(405);
        }
    }

    private HttpResponse<String> get(InferdServer server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
