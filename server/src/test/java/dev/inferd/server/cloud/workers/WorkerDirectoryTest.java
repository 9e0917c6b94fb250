package dev.inferd.server.cloud.workers;

import dev.inferd.server.store.Database;
import dev.inferd.server.store.LoadClaims;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.WorkerRow;
import dev.inferd.server.store.WorkerStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Which workers a gateway routes to: those whose renewals keep coming, judged on the gateway's own clock. */
class WorkerDirectoryTest {

    private final Database db = TestDatabases.open(TestDatabases.SQLITE);
    private final WorkerStore store = new WorkerStore(db);
    private final AtomicLong nanos = new AtomicLong();
    private final LoadClaims claims = new LoadClaims(db);
    private final WorkerDirectory directory = new WorkerDirectory(store, claims, Duration.ofSeconds(4), null, nanos::get);
    /** A second gateway on the same database, with a clock of its own. */
    private final AtomicLong otherNanos = new AtomicLong(1_000_000_000_000L);
    private final WorkerDirectory other = new WorkerDirectory(store, claims, Duration.ofSeconds(4), null, otherNanos::get);

    @AfterEach
    void close() {
        directory.close();
        other.close();
        db.close();
    }

    private void renew(String id, List<String> models, boolean draining) {
        renew(id, models, List.of(), draining);
    }

    private void renew(String id, List<String> models, List<String> loading, boolean draining) {
        store.renew(new WorkerRow(id, "http://" + id, models, loading, 1000, 500, 0, 0, 0.25, draining, 0, 0, 0), 0);
    }

    private void refreshBoth() {
        directory.refresh();
        other.refresh();
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void aWorkerThatStopsRenewingIsOutAfterTheTtlAndBackWhenItRenews() {
        renew("a", List.of("m"), false);
        renew("b", List.of("m"), false);
        directory.refresh();
        assertThat(directory.live()).extracting(WorkerRow::id).containsExactly("a", "b");
        advance(Duration.ofSeconds(3));
        renew("a", List.of("m"), false);
        directory.refresh();
        advance(Duration.ofSeconds(2));
        directory.refresh();
        assertThat(directory.live()).extracting(WorkerRow::id).containsExactly("a");
        renew("b", List.of("m"), false);
        directory.refresh();
        assertThat(directory.live()).extracting(WorkerRow::id).containsExactly("a", "b");
        assertThat(directory.live().getFirst().kvUse()).isEqualTo(0.25);
    }

    @Test
    void anUnreachableWorkerIsOutUntilItsNextRenewalAndADrainingOneTakesNothing() {
        renew("a", List.of("m"), false);
        renew("b", List.of("m"), true);
        directory.refresh();
        assertThat(directory.live()).extracting(WorkerRow::id).containsExactly("a");
        directory.unreachable(directory.live().getFirst());
        assertThat(directory.live()).isEmpty();
        assertThat(directory.choose("m", null, Set.of(), Duration.ofSeconds(1))).isEmpty();
        renew("a", List.of("m"), false);
        directory.refresh();
        assertThat(directory.live()).extracting(WorkerRow::id).containsExactly("a");
    }

    @Test
    void aModelBeingLoadedKeepsItsWorkerForTheNextRequests() {
        renew("a", List.of(), false);
        renew("b", List.of(), false);
        directory.refresh();
        var first = directory.choose("m", null, Set.of(), Duration.ofSeconds(10)).orElseThrow();
        assertThat(first.loads()).isTrue();
        try (var lease = directory.lease(first.worker().id())) {
            // the other worker is now less busy, yet the load stays where it began
            var second = directory.choose("m", null, Set.of(), Duration.ofSeconds(10)).orElseThrow();
            assertThat(second.worker().id()).isEqualTo(first.worker().id());
            assertThat(directory.outstanding()).containsEntry(first.worker().id(), 1);
        }
        assertThat(directory.outstanding()).containsEntry(first.worker().id(), 0);
    }

    @Test
    void twoGatewaysThatWouldPickDifferentWorkersLoadTheModelOnTheOneClaimedFirst() {
        renew("a", List.of(), false);
        renew("b", List.of(), false);
        refreshBoth();
        // each gateway has a request of its own on a different worker, so each alone would load m on the other one
        try (var onA = directory.lease("a"); var onB = other.lease("b")) {
            var first = directory.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow();
            var second = other.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow();
            assertThat(first.worker().id()).isEqualTo("b");
            assertThat(second.worker().id()).isEqualTo("b");
            assertThat(second.loads()).isTrue();
            assertThat(claims.current("m")).hasValueSatisfying(c -> assertThat(c.worker()).isEqualTo("b"));
        }
    }

    @Test
    void aModelAWorkerReportsLoadingGoesThereWithoutAClaim() {
        renew("a", List.of(), List.of("m"), false);
        renew("b", List.of(), false);
        refreshBoth();
        try (var busy = other.lease("a"); var busier = other.lease("a")) {
            assertThat(other.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow().worker().id()).isEqualTo("a");
        }
        assertThat(claims.current("m")).isEmpty();
        renew("a", List.of("m"), false);
        refreshBoth();
        var served = directory.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow();
        assertThat(served.worker().id()).isEqualTo("a");
        assertThat(served.loads()).isFalse();
    }

    @Test
    void aClaimWhoseWorkerIsOutIsTakenOverAndFollowedByEveryGateway() {
        renew("a", List.of(), false);
        renew("b", List.of(), false);
        refreshBoth();
        try (var onB = directory.lease("b")) {
            assertThat(directory.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow().worker().id()).isEqualTo("a");
        }
        // a dies before it lists m: only b renews, and the other gateway takes a out after its ttl
        advanceOther(Duration.ofSeconds(3));
        renew("b", List.of(), false);
        other.refresh();
        advanceOther(Duration.ofSeconds(2));
        other.refresh();
        assertThat(other.live()).extracting(WorkerRow::id).containsExactly("b");
        assertThat(other.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow().worker().id()).isEqualTo("b");
        assertThat(claims.current("m")).hasValueSatisfying(c -> assertThat(c.worker()).isEqualTo("b"));
        // the first gateway follows the new claim once it reads it again, though a is still live in its view
        advance(Duration.ofSeconds(2));
        renew("a", List.of(), false);
        renew("b", List.of(), false);
        directory.refresh();
        assertThat(directory.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow().worker().id()).isEqualTo("b");
    }

    @Test
    void aRequestThatFailedOnTheClaimedWorkerTakesTheLoadElsewhere() {
        renew("a", List.of(), false);
        renew("b", List.of(), false);
        refreshBoth();
        String first = directory.choose("m", null, Set.of(), Duration.ofSeconds(30)).orElseThrow().worker().id();
        String second = other.choose("m", null, Set.of(first), Duration.ofSeconds(30)).orElseThrow().worker().id();
        assertThat(second).isNotEqualTo(first);
        assertThat(claims.current("m")).hasValueSatisfying(c -> assertThat(c.worker()).isEqualTo(second));
    }

    private void advanceOther(Duration d) {
        otherNanos.addAndGet(d.toNanos());
    }
}
