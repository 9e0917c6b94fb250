package dev.inferd.server.store;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** Load claims on SQLite (and on a real PostgreSQL in {@link PostgresLoadClaimsTest}): one claim in force per model. */
class LoadClaimsTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    /** The kind of database the tests run on; a subclass runs them on PostgreSQL. */
    String kind() {
        return TestDatabases.SQLITE;
    }

    @Test
    void theFirstClaimWinsAndALaterOneGetsIt() {
        try (Database db = TestDatabases.open(kind())) {
            var claims = new LoadClaims(db);
            assertThat(claims.current("m")).isEmpty();
            LoadClaim first = claims.claim("m", "a", LONG, null);
            assertThat(first.worker()).isEqualTo("a");
            assertThat(first.remainingMillis()).isBetween(LONG.toMillis() / 2, LONG.toMillis());
            assertThat(claims.claim("m", "b", LONG, null)).extracting(LoadClaim::worker, LoadClaim::token)
                    .containsExactly("a", first.token());
            assertThat(claims.current("m").orElseThrow().token()).isEqualTo(first.token());
            assertThat(claims.claim("n", "b", LONG, null).worker()).as("another model's claim is its own").isEqualTo("b");
        }
    }

    @Test
    void aLapsedClaimIsTakenOverByTheNextAndIsNoLongerInForce() {
        try (Database db = TestDatabases.open(kind())) {
            var claims = new LoadClaims(db);
            claims.claim("m", "a", Duration.ZERO, null);
            assertThat(claims.current("m")).isEmpty();
            assertThat(claims.claim("m", "b", LONG, null).worker()).isEqualTo("b");
        }
    }

    @Test
    void onlyTheClaimReadIsDisplacedNotOneMadeSince() {
        try (Database db = TestDatabases.open(kind())) {
            var claims = new LoadClaims(db);
            LoadClaim onA = claims.claim("m", "a", LONG, null);
            // two gateways find a out; the first takes the claim over, the second then finds the new claim in force
            LoadClaim onB = claims.claim("m", "b", LONG, onA.token());
            assertThat(onB.worker()).isEqualTo("b");
            LoadClaim second = claims.claim("m", "c", LONG, onA.token());
            assertThat(second).extracting(LoadClaim::worker, LoadClaim::token).containsExactly("b", onB.token());
        }
    }

    @Test
    void manyGatewaysClaimingAtOnceAllGetTheOneWinner() throws Exception {
        try (Database db = TestDatabases.open(kind())) {
            var claims = new LoadClaims(db);
            int gateways = 8;
            var go = new CountDownLatch(1);
            List<Future<LoadClaim>> results = new ArrayList<>();
            try (var threads = Executors.newFixedThreadPool(gateways)) {
                for (int i = 0; i < gateways; i++) {
                    String worker = "w" + i;
                    results.add(threads.submit(() -> {
                        go.await();
                        return claims.claim("m", worker, LONG, null);
                    }));
                }
                go.countDown();
            }
            var winners = new java.util.HashSet<String>();
            for (var r : results) winners.add(r.get().token());
            assertThat(winners).hasSize(1);
            assertThat(claims.current("m").orElseThrow().token()).isEqualTo(winners.iterator().next());
        }
    }
}
