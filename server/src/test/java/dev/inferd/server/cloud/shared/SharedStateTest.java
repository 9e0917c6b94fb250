package dev.inferd.server.cloud.shared;

import dev.inferd.server.cloud.auth.IssuedKey;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two gateways on one PostgreSQL share what must be shared: a key revoked or rotated through one is refused by the
 * other within a second, though the other keeps the keys it found; a key's limit holds for both together.
 */
@Tag("slow")
class SharedStateTest {

    private TwoGateways gateways;
    private String accountId;

    @BeforeEach
    void start() {
        gateways = new TwoGateways(TestDatabases.url(TestDatabases.POSTGRESQL), null);
        accountId = gateways.a.accounts().createAccount("acme", TwoGateways.TEST).id();
    }

    @AfterEach
    void stop() {
        gateways.close();
    }

    private IssuedKey key(Integer limit) {
        return gateways.a.accounts().createKey(accountId, new KeySpec("k", KeyScopes.EVERYTHING, null, limit), TwoGateways.TEST);
    }

    @Test
    void aKeyRevokedThroughOneGatewayIsRefusedByTheOtherWithinASecond() throws Exception {
        IssuedKey key = key(1000);
        // B finds the key and keeps it
        assertThat(gateways.models(gateways.b, key.secret()).statusCode()).isEqualTo(200);
        assertThat(gateways.models(gateways.b, key.secret()).statusCode()).isEqualTo(200);

        gateways.a.accounts().revokeKey(accountId, key.key().id(), TwoGateways.TEST);
        long revoked = System.nanoTime();
        HttpResponse<String> refused = awaitStatus(key.secret(), 401);
        assertThat(Duration.ofNanos(System.nanoTime() - revoked)).isLessThan(Duration.ofSeconds(1));
        assertThat(refused.body()).contains("has been revoked");
    }

    @Test
    void aKeyRotatedWithoutGraceIsRefusedByTheOtherWithinASecondAndItsNewSecretWorks() throws Exception {
        IssuedKey key = key(1000);
        assertThat(gateways.models(gateways.b, key.secret()).statusCode()).isEqualTo(200);

        IssuedKey rotated = gateways.a.accounts().rotateKey(accountId, key.key().id(), Duration.ZERO, TwoGateways.TEST);
        long changed = System.nanoTime();
        awaitStatus(key.secret(), 401);
        assertThat(Duration.ofNanos(System.nanoTime() - changed)).isLessThan(Duration.ofSeconds(1));
        assertThat(gateways.models(gateways.b, rotated.secret()).statusCode()).isEqualTo(200);
    }

    @Test
    void aLimitChangedThroughOneGatewayHoldsOnTheOther() throws Exception {
        IssuedKey key = key(1000);
        assertThat(gateways.models(gateways.b, key.secret()).headers().firstValue("x-ratelimit-limit-requests")).hasValue("1000");
        gateways.a.accounts().updateKey(accountId, key.key().id(), new KeySpec("k", KeyScopes.EVERYTHING, null, 7), TwoGateways.TEST);
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        String limit;
        do {
            limit = gateways.models(gateways.b, key.secret()).headers().firstValue("x-ratelimit-limit-requests").orElseThrow();
        } while (!limit.equals("7") && System.nanoTime() < deadline);
        assertThat(limit).isEqualTo("7");
    }

    @Test
    void oneKeysLimitHoldsForBothGatewaysTogether() throws Exception {
        SharedLimitCheck.across(gateways, key(SharedLimitCheck.LIMIT).secret());
    }

    /** Polls B until it answers {@code status} (a second and a half at most). */
    private HttpResponse<String> awaitStatus(String secret, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        while (true) {
            HttpResponse<String> response = gateways.models(gateways.b, secret);
            if (response.statusCode() == status || System.nanoTime() > deadline) {
                assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
                return response;
            }
            Thread.sleep(20);
        }
    }
}
