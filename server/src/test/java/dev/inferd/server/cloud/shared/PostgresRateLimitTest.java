package dev.inferd.server.cloud.shared;

import dev.inferd.server.cloud.ratelimit.RateDecision;
import dev.inferd.server.cloud.ratelimit.SharedRateLimiter;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-key limits in PostgreSQL's table, taken by two gateways (two limiters on one database) at once. A burst of
 * a new key's first requests through both is where the store's row starts empty: every take must be answered
 * (allowed or refused), never failed, and the two must take from one bucket.
 */
class PostgresRateLimitTest {

    private static final int LIMIT = 60;
    private static final int TAKES_PER_LIMITER = 60;
    private static final int NEW_KEYS = 8;

    private static Database db;

    @BeforeAll
    static void open() {
        db = TestDatabases.open(TestDatabases.POSTGRESQL);
    }

    @AfterAll
    static void close() {
        if (db != null) db.close();
    }

    @Test
    void twoLimitersOnOneDatabaseShareOneBucketAndReportItsState() {
        try (var a = SharedRateLimiter.postgres(db, Duration.ofMinutes(1));
             var b = SharedRateLimiter.postgres(db, Duration.ofMinutes(1))) {
            assertThat(a.backend()).isEqualTo("PostgreSQL");
            for (int i = 0; i < 10; i++) {
                RateDecision d = (i % 2 == 0 ? a : b).tryAcquire("key-1", 10);
                assertThat(d.allowed()).isTrue();
                assertThat(d.remaining()).isEqualTo(9 - i);
            }
            assertThat(b.tryAcquire("key-1", 10).allowed()).isFalse();
            assertThat(a.tryAcquire("key-1", 10).allowed()).isFalse();
            assertThat(a.tryAcquire("key-1", 11).remaining()).isEqualTo(10);
        }
    }

    /**
     * Bucket4j's batching sends one process's waiting takes as one command; when the row it locks has no state (the
     * other process, or this one's first take, has just inserted it and not yet written the bucket's first state, or
     * the cleaner has removed the row of a bucket that stayed full), the whole batch is answered "bucket not found"
     * and Bucket4j throws for each take instead of creating the bucket. Many new keys, each with a burst through both
     * limiters at once, then again after their rows are removed, meet that window; no take may fail, even once.
     */
    @Test
    void burstsOfTakesThroughTwoLimitersOnNewAndRemovedBucketsAreAnsweredInFullFromOneBucket() throws Exception {
        List<LogRecord> complaints = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(SharedRateLimiter.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) complaints.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try (var a = SharedRateLimiter.postgres(db, Duration.ofMinutes(1));
             var b = SharedRateLimiter.postgres(db, Duration.ofMinutes(1))) {
            for (int k = 0; k < NEW_KEYS; k++) {
                String key = "burst-" + k;
                burst(a, b, key);
                // what the cleaner does to the row of a bucket that stayed full
                db.update("DELETE FROM inferd_rate_buckets WHERE id = ?", key + "/" + LIMIT);
                burst(a, b, key);
            }
        } finally {
            log.removeHandler(handler);
        }
        assertThat(complaints).extracting(LogRecord::getMessage).as("the store's complaints").isEmpty();
    }

    /** Takes from both limiters let go at once on a full bucket: every one answered, one bucket's worth allowed. */
    private static void burst(SharedRateLimiter a, SharedRateLimiter b, String key) throws Exception {
        var go = new CountDownLatch(1);
        List<Future<RateDecision>> decisions = new ArrayList<>();
        long started;
        try (var clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 2 * TAKES_PER_LIMITER; i++) {
                var limiter = i % 2 == 0 ? a : b;
                decisions.add(clients.submit(() -> {
                    go.await();
                    return limiter.tryAcquire(key, LIMIT);
                }));
            }
            started = System.nanoTime();
            go.countDown();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        int allowed = 0;
        for (var decision : decisions) {
            if (decision.get().allowed()) allowed++; // a failed take throws here
        }
        // one token a second comes back
        assertThat(allowed).as("%s: allowed in %.2f s", key, seconds).isBetween(LIMIT, LIMIT + (int) Math.ceil(seconds));
    }
}
