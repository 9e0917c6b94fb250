package dev.inferd.server.cloud.workers;

import dev.inferd.server.store.Database;
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
    private final WorkerDirectory directory = new WorkerDirectory(store, Duration.ofSeconds(4), null, nanos::get);

    @AfterEach
    void close() {
        directory.close();
        db.close();
    }

    private void renew(String id, List<String> models, boolean draining) {
        store.renew(new WorkerRow(id, "http://" + id, models, 1000, 500, 0, 0, 0.25, draining, 0, 0, 0), 0);
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
}
