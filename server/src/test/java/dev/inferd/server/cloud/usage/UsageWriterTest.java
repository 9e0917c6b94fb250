package dev.inferd.server.cloud.usage;

import dev.inferd.server.store.AccountStore;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.KeyStore;
import dev.inferd.server.store.RefusedRequests;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link UsageWriter}: every write returns with its record committed, whatever runs beside it. */
class UsageWriterTest {

    @Test
    void concurrentWritesAreEachCommittedWhenTheyReturnAndABadRecordFailsAlone() throws Exception {
        try (var db = TestDatabases.open(TestDatabases.SQLITE)) {
            var account = new AccountStore(db).create("acme", null, 0);
            new KeyStore(db).insert(new ApiKey("k1", account.id(), "k", "sk-1", KeyScopes.EVERYTHING, null, 0, null, null, null), "h1");
            var store = new UsageStore(db);
            try (var writer = new UsageWriter(store); var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Long>> seen = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    var record = record(account.id(), "k1");
                    seen.add(pool.submit(() -> {
                        writer.write(record);
                        // committed, so visible to another connection at once
                        return store.list(UsageFilter.account(account.id()), 1000).stream()
                                .filter(r -> r.id().equals(record.id())).count();
                    }));
                }
                for (var f : seen) assertThat(f.get()).isEqualTo(1);

                assertThatThrownBy(() -> writer.write(record(account.id(), "no-such-key"))).isInstanceOf(IllegalStateException.class);
                writer.write(record(account.id(), "k1"));
            }
            assertThat(store.totals(UsageFilter.account(account.id())).requests()).isEqualTo(201);
        }
    }

    @Test
    void refusalsAreCountedPerKeyAndMinuteWithoutWaiting() throws Exception {
        try (var db = TestDatabases.open(TestDatabases.SQLITE)) {
            var account = new AccountStore(db).create("acme", null, 0);
            new KeyStore(db).insert(new ApiKey("k1", account.id(), "k", "sk-1", KeyScopes.EVERYTHING, null, 0, null, null, null), "h1");
            var store = new UsageStore(db);
            long minute = RefusedRequests.minuteOf(1_000_000);
            try (var writer = new UsageWriter(store)) {
                for (int i = 0; i < 1000; i++) {
                    writer.countRefusal(new RefusedRequests(account.id(), "k1", minute, i % 3 == 0 ? 1 : 0, i % 3 == 0 ? 0 : 1));
                }
                writer.countRefusal(new RefusedRequests(account.id(), "k1", minute + 60_000, 1, 0));
            } // close writes what is pending
            List<RefusedRequests> rows = store.refusals(UsageFilter.account(account.id()));
            assertThat(rows).extracting(RefusedRequests::minute).containsExactly(minute, minute + 60_000);
            assertThat(rows.getFirst().forbidden()).isEqualTo(334);
            assertThat(rows.getFirst().rateLimited()).isEqualTo(666);
            assertThat(store.list(UsageFilter.account(account.id()), 10)).isEmpty();
        }
    }

    private static UsageRecord record(String account, String key) {
        return new UsageRecord(RowIds.next("use"), account, key, "m", "chat.completions", 3, 4, 0, 0, 200, 1,
                new BigDecimal("0.0000000000"), 1_000);
    }
}
