package dev.inferd.server.cloud;

import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.RefusedRequests;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every request of a known key counts against its rate limit, a 403 for scope included, and carries the
 * {@code x-ratelimit-*} headers; refusals (403, 429) are counted per key and minute, so a loop of them adds no usage
 * record and at most one row a minute. On SQLite; {@link PostgresRefusalsCountTest} on PostgreSQL.
 */
class RefusalsCountTest {

    private static final int LIMIT = 5;
    private static final int REQUESTS = 150;

    private Database db;
    private CloudDeployment cloud;
    private Account acme;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    String kind() {
        return TestDatabases.SQLITE;
    }

    @BeforeEach
    void start() {
        db = TestDatabases.open(kind());
        var registry = new ModelRegistry();
        registry.ready(CloudGatewayTest.CHAT, new EchoModel(CloudGatewayTest.CHAT));
        registry.ready(CloudGatewayTest.OTHER, new EchoModel(CloudGatewayTest.OTHER));
        cloud = CloudDeployment.start("127.0.0.1", 0, db, new CloudConfig(null, null, null, Map.of()), registry, Clock.systemUTC());
        acme = cloud.accounts().createAccount("acme", CloudGatewayTest.TEST);
    }

    @AfterEach
    void stop() {
        cloud.close();
        db.close();
    }

    @Test
    void quick403sCountAgainstTheLimitCarryTheHeadersAndAddNoRecords() throws Exception {
        var key = cloud.accounts().createKey(acme.id(),
                new KeySpec("models-only", new KeyScopes(List.of(), List.of("models")), null, LIMIT), CloudGatewayTest.TEST);
        long started = System.nanoTime();
        int forbidden = 0;
        int limited = 0;
        for (int i = 0; i < REQUESTS; i++) {
            var response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/v1/completions"))
                            .header("Authorization", "Bearer " + key.secret()).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + CloudGatewayTest.CHAT + "\",\"prompt\":\"x\"}"))
                            .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.headers().firstValue("x-ratelimit-limit-requests")).as("request " + i).hasValue(Integer.toString(LIMIT));
            assertThat(response.headers().firstValue("x-ratelimit-remaining-requests")).as("request " + i).isPresent();
            assertThat(response.headers().firstValue("x-ratelimit-reset-requests")).as("request " + i).isPresent();
            switch (response.statusCode()) {
                case 403 -> forbidden++;
                case 429 -> {
                    limited++;
                    assertThat(response.headers().firstValue("retry-after")).isPresent();
                }
                default -> throw new AssertionError("status " + response.statusCode() + ": " + response.body());
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(limited).as("429s among %d refusals in %.2f s", REQUESTS, seconds).isPositive();
        // the bucket holds LIMIT and refills LIMIT a second
        assertThat(forbidden).isLessThanOrEqualTo(LIMIT + (int) Math.ceil(LIMIT * seconds));

        var usage = new UsageStore(db);
        var filter = UsageFilter.account(acme.id()).key(key.key().id());
        List<RefusedRequests> rows = awaitRefusals(usage, filter, REQUESTS);
        assertThat(usage.list(filter, 1000)).as("usage records").isEmpty();
        assertThat(rows.size()).as("rows per key-minute").isLessThanOrEqualTo(1 + (int) Math.ceil(seconds / 60));
        assertThat(rows.stream().mapToLong(RefusedRequests::forbidden).sum()).isEqualTo(forbidden);
        assertThat(rows.stream().mapToLong(RefusedRequests::rateLimited).sum()).isEqualTo(limited);
    }

    @Test
    void aModelOutsideTheScopeIsARefusalTooAndAnswersCountAsRecords() throws Exception {
        var key = cloud.accounts().createKey(acme.id(),
                new KeySpec("chat-only", new KeyScopes(List.of(CloudGatewayTest.CHAT), List.of()), null, 1000), CloudGatewayTest.TEST);
        for (String model : List.of(CloudGatewayTest.OTHER, CloudGatewayTest.OTHER, CloudGatewayTest.CHAT)) {
            var response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + key.secret()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model
                            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(model.equals(CloudGatewayTest.CHAT) ? 200 : 403);
            assertThat(response.headers().firstValue("x-ratelimit-remaining-requests")).isPresent();
        }
        var usage = new UsageStore(db);
        var filter = UsageFilter.account(acme.id()).key(key.key().id());
        List<RefusedRequests> rows = awaitRefusals(usage, filter, 2);
        assertThat(rows).singleElement().satisfies(r -> {
            assertThat(r.forbidden()).isEqualTo(2);
            assertThat(r.rateLimited()).isZero();
        });
        // the answered request's record was committed before its answer: there without waiting
        assertThat(usage.list(filter, 10)).singleElement().satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }

    /** Refusal counts go in with the writer's next commit, at most a second later. */
    private static List<RefusedRequests> awaitRefusals(UsageStore usage, UsageFilter filter, long total) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<RefusedRequests> rows = usage.refusals(filter);
        while (rows.stream().mapToLong(RefusedRequests::total).sum() < total && System.nanoTime() < deadline) {
            Thread.sleep(50);
            rows = usage.refusals(filter);
        }
        return rows;
    }
}
