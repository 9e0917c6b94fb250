package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.cloud.admin.AdminApi;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A 500's message names the same request id as its {@code x-request-id} header, wherever the fault happened. */
class RequestIdTest {

    private static final String CHAT = "{\"model\":\"" + TestServer.MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    @Test
    void anEngineFaultNamesTheHeadersId() throws Exception {
        try (var server = new TestServer()) {
            server.model.failAfterTokens(0);
            assertSameId(server.post("/v1/chat/completions", CHAT));
        }
    }

    @Test
    void aFaultInTheFrontLayerNamesTheHeadersId() throws Exception {
        HttpFilter failing = (request, response, chain) -> {
            throw new IllegalStateException("a fault of the front layer");
        };
        try (var server = InferdServer.start("127.0.0.1", 0, new ModelRegistry(), new SpeechModels(),
                ServerOptions.defaults(), failing)) {
            assertSameId(get(server, "/v1/models", null));
        }
    }

    @Test
    void aFaultInTheAdminApiNamesTheHeadersId() throws Exception {
        Database db = TestDatabases.open(TestDatabases.SQLITE);
        var admin = new AdminApi(db, new Accounts(db, Clock.systemUTC()), "operator-secret");
        db.close(); // every query now fails inside the API
        try (var server = InferdServer.start("127.0.0.1", 0, new ModelRegistry(), new SpeechModels(),
                ServerOptions.defaults(), (request, response, chain) -> admin.handle(request, response))) {
            assertSameId(get(server, "/admin/v1/accounts", "Bearer operator-secret"));
        }
    }

    private static HttpResponse<String> get(InferdServer server, String path, String authorization) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) request.header("Authorization", authorization);
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static void assertSameId(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(500);
        String id = response.headers().firstValue("x-request-id").orElseThrow();
        assertThat(id).matches("req_[0-9a-f]+");
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("message").asText()).contains(id);
    }
}
