package dev.inferd.server.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.MultipartForm;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One credential per request, on every route: two {@code Authorization} headers (in either order, valid or not),
 * two {@code x-api-key} headers, or the two headers naming different keys are a 401 in OpenAI's error shape before
 * any work (no usage record); {@code x-api-key} alone, or both headers naming the same key, is accepted. The admin
 * API and {@code /metrics} take the operator token under the same rules.
 */
class CloudCredentialsTest {

    private static final String OPERATOR_TOKEN = "operator-token-for-the-credentials-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Database db;
    private static CloudDeployment cloud;
    private static Account acme;
    private static String key;
    private static String otherKey;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A route of the API: method, path, content type and body (null for none). */
    record Route(String method, String path, String contentType, byte[] body) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    static List<Route> apiRoutes() {
        String chat = "{\"model\":\"" + CloudGatewayTest.CHAT + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        String completion = "{\"model\":\"" + CloudGatewayTest.CHAT + "\",\"prompt\":\"Once\"}";
        byte[] audio = MultipartForm.body(Map.of("model", "whisper-tiny"), "a.wav", "audio/wav", new byte[64]);
        return List.of(new Route("POST", "/v1/chat/completions", "application/json", chat.getBytes()),
                new Route("POST", "/v1/completions", "application/json", completion.getBytes()),
                new Route("GET", "/v1/models", null, null),
                new Route("GET", "/v1/models/" + CloudGatewayTest.CHAT, null, null),
                new Route("POST", "/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE, audio),
                new Route("POST", "/v1/messages", "application/json", chat.replace("{\"model\"", "{\"max_tokens\":16,\"model\"")
                        .getBytes()));
    }

    @BeforeAll
    static void start() {
        db = TestDatabases.open(TestDatabases.SQLITE);
        var registry = new ModelRegistry();
        registry.ready(CloudGatewayTest.CHAT, new EchoModel(CloudGatewayTest.CHAT));
        var config = new CloudConfig(null, 1_000_000, OPERATOR_TOKEN, Map.of());
        cloud = CloudDeployment.start("127.0.0.1", 0, db, config, registry, java.time.Clock.systemUTC());
        acme = cloud.accounts().createAccount("acme", CloudGatewayTest.TEST);
        key = cloud.accounts().createKey(acme.id(), KeySpec.named("one"), CloudGatewayTest.TEST).secret();
        otherKey = cloud.accounts().createKey(acme.id(), KeySpec.named("two"), CloudGatewayTest.TEST).secret();
    }

    @AfterAll
    static void stop() {
        cloud.close();
        db.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apiRoutes")
    void ambiguousCredentialsAre401BeforeAnyWork(Route route) throws Exception {
        long recordsBefore = records();
        List<List<String>> ambiguous = List.of(
                List.of("Authorization", "Bearer " + key, "Authorization", "Bearer garbage"),
                List.of("Authorization", "Bearer garbage", "Authorization", "Bearer " + key),
                List.of("Authorization", "Bearer " + key, "Authorization", "Bearer " + otherKey),
                List.of("Authorization", "Bearer " + key, "Authorization", "Bearer " + key),
                List.of("Authorization", "Bearer " + key, "x-api-key", otherKey),
                List.of("x-api-key", otherKey, "Authorization", "Bearer " + key),
                List.of("x-api-key", key, "x-api-key", otherKey),
                List.of("Authorization", "Basic " + key, "x-api-key", key));
        for (List<String> headers : ambiguous) {
            HttpResponse<String> response = send(route, headers);
            assertThat(response.statusCode()).as(route + " with " + names(headers)).isEqualTo(401);
            JsonNode body = JSON.readTree(response.body());
            JsonNode error = body.get("error");
            assertThat(error.get("type").asText()).isEqualTo("authentication_error");
            if (route.path().startsWith("/v1/messages")) {
                assertThat(body.get("type").asText()).as("Anthropic's error shape").isEqualTo("error");
            } else {
                assertThat(error.get("code").asInt()).isEqualTo(401);
                assertThat(error.has("param")).isTrue();
            }
            assertThat(error.get("message").asText()).as(route + " with " + names(headers))
                    .containsAnyOf("send exactly one", "send one key", "must be 'Bearer");
            assertThat(response.body()).doesNotContain(key.substring(10)).doesNotContain(otherKey.substring(10));
            assertThat(response.headers().firstValue("x-ratelimit-limit-requests")).isEmpty();
        }
        assertThat(records()).as("usage records of refused credentials").isEqualTo(recordsBefore);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apiRoutes")
    void oneKeyInEitherHeaderOrTheSameInBothIsAccepted(Route route) throws Exception {
        for (List<String> headers : List.of(List.of("x-api-key", key), List.of("Authorization", "Bearer " + key, "x-api-key", key),
                List.of("Authorization", "Bearer " + key))) {
            HttpResponse<String> response = send(route, headers);
            assertThat(response.statusCode()).as(route + " with " + names(headers)).isNotEqualTo(401).isNotEqualTo(400);
            assertThat(response.headers().firstValue("x-ratelimit-limit-requests")).isPresent();
        }
        HttpResponse<String> models = send(new Route("GET", "/v1/models", null, null), List.of("x-api-key", key));
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(models.body()).contains(CloudGatewayTest.CHAT);
    }

    @Test
    void theAdminApiAndMetricsWantExactlyTheOperatorToken() throws Exception {
        for (String path : List.of("/admin/v1/accounts", "/metrics")) {
            var route = new Route("GET", path, null, null);
            assertThat(send(route, List.of("Authorization", "Bearer " + OPERATOR_TOKEN)).statusCode()).as(path).isEqualTo(200);
            assertThat(send(route, List.of("x-api-key", OPERATOR_TOKEN)).statusCode()).as(path).isEqualTo(200);
            for (List<String> headers : List.of(List.<String>of(), List.of("Authorization", "Bearer " + key),
                    List.of("Authorization", "Bearer " + OPERATOR_TOKEN, "Authorization", "Bearer garbage"),
                    List.of("Authorization", "Bearer garbage", "Authorization", "Bearer " + OPERATOR_TOKEN),
                    List.of("Authorization", "Bearer " + OPERATOR_TOKEN, "x-api-key", key))) {
                HttpResponse<String> response = send(route, headers);
                assertThat(response.statusCode()).as(path + " with " + names(headers)).isEqualTo(401);
                assertThat(response.body()).contains("\"type\":\"authentication_error\"").doesNotContain("inferd_requests");
            }
        }
        String metrics = send(new Route("GET", "/metrics", null, null), List.of("Authorization", "Bearer " + OPERATOR_TOKEN)).body();
        assertThat(metrics).contains("# TYPE");
    }

    @Test
    void withoutAnOperatorTokenMetricsAreClosed() throws Exception {
        try (Database other = TestDatabases.open(TestDatabases.SQLITE);
             var closed = CloudDeployment.start("127.0.0.1", 0, other, CloudConfig.empty(), new ModelRegistry(), java.time.Clock.systemUTC())) {
            var response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + closed.port() + "/metrics"))
                    .header("Authorization", "Bearer anything").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(response.body()).contains("\"type\":\"permission_error\"").contains("operator token");
        }
    }

    private static long records() {
        return new UsageStore(db).totals(UsageFilter.account(acme.id())).requests();
    }

    private static String names(List<String> headers) {
        var names = new StringBuilder();
        for (int i = 0; i < headers.size(); i += 2) names.append(i == 0 ? "" : ", ").append(headers.get(i));
        return "[" + names + "]";
    }

    private static HttpResponse<String> send(Route route, List<String> headers) throws Exception {
        var builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + route.path()))
                .timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.size(); i += 2) builder.header(headers.get(i), headers.get(i + 1));
        if (route.body() == null) {
            builder.method(route.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            builder.header("Content-Type", route.contentType())
                    .method(route.method(), HttpRequest.BodyPublishers.ofByteArray(route.body()));
        }
        return HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
