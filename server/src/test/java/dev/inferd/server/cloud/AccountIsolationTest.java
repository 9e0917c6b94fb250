package dev.inferd.server.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.NoSuchElementException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two accounts on one deployment see nothing of each other: not keys, not usage, not audit entries, through the
 * service and through the admin API; and the admin API wants its operator token. On SQLite ({@link PostgresAccountIsolationTest}: PostgreSQL).
 */
class AccountIsolationTest {

    private static final String OPERATOR = "operator-token-for-tests-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final HttpClient http = HttpClient.newHttpClient();

    /** The kind of database the test runs on; a subclass runs it on PostgreSQL. */
    String kind() {
        return TestDatabases.SQLITE;
    }

    @Test
    void accountsCannotSeeEachOthersKeysOrUsage() throws Exception {
        String kind = kind();
        var registry = new ModelRegistry();
        registry.ready("m", new EchoModel("m"));
        var config = new CloudConfig(null, null, OPERATOR, Map.of());
        try (Database db = TestDatabases.open(kind);
             CloudDeployment cloud = CloudDeployment.start("127.0.0.1", 0, db, config, registry, Clock.systemUTC())) {
            var accounts = cloud.accounts();
            var actor = new Actor("test", "junit");
            var a = accounts.createAccount("alpha", actor);
            var b = accounts.createAccount("beta", actor);
            var keyA = accounts.createKey(a.id(), KeySpec.named("a-key"), actor);
            var keyB = accounts.createKey(b.id(), KeySpec.named("b-key"), actor);
            var client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + cloud.port() + "/v1")
                    .apiKey(keyA.secret()).maxRetries(0).build();
            try {
                client.models().list();
                client.models().list();
            } finally {
                client.close();
            }

            // the service: another account's key is not found, whatever the call
            assertThat(accounts.listKeys(b.id())).extracting(k -> k.id()).containsExactly(keyB.key().id());
            assertThatThrownBy(() -> accounts.key(b.id(), keyA.key().id())).isInstanceOf(NoSuchElementException.class);
            assertThatThrownBy(() -> accounts.revokeKey(b.id(), keyA.key().id(), actor)).isInstanceOf(NoSuchElementException.class);
            assertThatThrownBy(() -> accounts.rotateKey(b.id(), keyA.key().id(), Duration.ZERO, actor))
                    .isInstanceOf(NoSuchElementException.class);
            assertThat(accounts.audit(b.id(), 100)).noneMatch(e -> keyA.key().id().equals(e.target()));

            // the admin API
            String base = "http://127.0.0.1:" + cloud.port() + "/admin/v1/accounts/";
            JsonNode keysOfB = json(get(base + "beta/keys", OPERATOR));
            assertThat(keysOfB.path("data").findValuesAsText("id")).containsExactly(keyB.key().id());
            assertThat(post(base + "beta/keys/" + keyA.key().id() + "/revoke", OPERATOR).statusCode()).isEqualTo(404);
            assertThat(accounts.key(a.id(), keyA.key().id()).isRevoked()).isFalse();
            assertThat(json(get(base + "beta/usage", OPERATOR)).path("totals").path("requests").asLong()).isZero();
            assertThat(json(get(base + "alpha/usage", OPERATOR)).path("totals").path("requests").asLong()).isEqualTo(2);
            assertThat(json(get(base + "beta/usage?key=" + keyA.key().id(), OPERATOR)).path("totals").path("requests").asLong())
                    .isZero();
            assertThat(get(base + "alpha/usage?format=csv", OPERATOR).body().lines().count()).isEqualTo(3);
            assertThat(get(base + "beta/usage?format=csv", OPERATOR).body()).doesNotContain(keyA.key().id());

            // the operator token guards it; an API key is not one
            assertThat(get(base + "alpha/keys", "wrong").statusCode()).isEqualTo(401);
            assertThat(get(base + "alpha/keys", keyA.secret()).statusCode()).isEqualTo(401);
            assertThat(get(base + "alpha/keys", null).body()).contains("authentication_error");
        }
    }

    private HttpResponse<String> get(String url, String token) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url)).GET();
        if (token != null) request.header("Authorization", "Bearer " + token);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String url, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
