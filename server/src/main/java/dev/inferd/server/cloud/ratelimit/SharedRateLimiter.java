package dev.inferd.server.cloud.ratelimit;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.store.Database;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.distributed.proxy.BucketNotFoundException;
import io.github.bucket4j.distributed.proxy.ExpiredEntriesCleaner;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Buckets kept where every gateway sees them (Bucket4j's distributed buckets): each request's turn is one
 * compare-and-swap of its key's bucket in PostgreSQL ({@code SELECT ... FOR UPDATE} on a row of
 * {@code inferd_rate_buckets}) or in Redis (Lettuce), so the limit holds for the keys' traffic in total.
 * A bucket's id is its key and limit, so a changed limit starts a fresh bucket; buckets expire once full again.
 * The requests of one process for one bucket go to the store in batches (Bucket4j's batching: those that arrive while
 * one is under way go together as one command, so the bucket stays exact): a burst of hundreds on one key costs a few
 * round trips, where a round trip each would queue on the row lock (PostgreSQL) or retry its compare-and-swap (Redis)
 * until the store's timeout turned them into 503s.
 * PostgreSQL's buckets are written without waiting for the disk ({@link Database#unsyncedDataSource}): a crash may
 * give back the last fraction of a second's tokens, which costs nothing, where a sync per request would cost
 * milliseconds. When the store cannot be reached the request is answered 503, never let through unlimited.
 */
public final class SharedRateLimiter implements RateLimiter {

    private static final System.Logger LOG = System.getLogger(SharedRateLimiter.class.getName());
    /** A full bucket is the same as none: its row or Redis key goes this long after it refilled. */
    private static final Duration KEEP_FULL = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    static final String TABLE = "inferd_rate_buckets";
    private static final long CLEAN_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final ProxyManager<String> buckets;
    private final Duration period;
    private final AutoCloseable connection;
    private final String backend;
    private final Map<String, StoredBucket> stored = new ConcurrentHashMap<>();
    private final AtomicLong lastCleaned = new AtomicLong(System.nanoTime());

    private SharedRateLimiter(ProxyManager<String> buckets, Duration period, AutoCloseable connection, String backend) {
        this.buckets = buckets;
        this.period = period;
        this.connection = connection;
        this.backend = backend;
    }

    /** Buckets in {@code db}'s table {@value #TABLE}, created when missing. */
    public static SharedRateLimiter postgres(Database db, Duration period) {
        if (!db.isPostgres()) throw new IllegalArgumentException("shared buckets need PostgreSQL, not " + db.describe());
        db.inTransaction(tx -> {
            tx.query("SELECT pg_advisory_xact_lock(?)", row -> 1, 0x696e66657264L);
            tx.update("CREATE TABLE IF NOT EXISTS " + TABLE + " (id VARCHAR(255) PRIMARY KEY, state BYTEA, expires_at BIGINT)");
            return null;
        });
        ProxyManager<String> manager = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(db.unsyncedDataSource())
                .primaryKeyMapper(PrimaryKeyMapper.STRING)
                .table(TABLE).idColumn("id").stateColumn("state").expiresAtColumn("expires_at")
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(KEEP_FULL))
                .requestTimeout(REQUEST_TIMEOUT)
                .build();
        return new SharedRateLimiter(manager, period, () -> { }, "PostgreSQL");
    }

    /** Buckets in the Redis at {@code url} ({@code redis://HOST:PORT}, {@code rediss://...} for TLS). */
    public static SharedRateLimiter redis(String url, Duration period) {
        RedisClient client = RedisClient.create(url);
        StatefulRedisConnection<String, byte[]> redis;
        try {
            redis = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        } catch (RuntimeException e) {
            client.shutdown();
            throw new IllegalArgumentException("cannot connect to Redis at " + redactedRedis(url) + ": " + e.getMessage(), e);
        }
        ProxyManager<String> manager = Bucket4jLettuce.casBasedBuilder(redis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(KEEP_FULL))
                .requestTimeout(REQUEST_TIMEOUT)
                .build();
        return new SharedRateLimiter(manager.withMapper(id -> "inferd:rate:" + id), period, () -> {
            redis.close();
            client.shutdown();
        }, "Redis");
    }

    @Override
    public RateDecision tryAcquire(String keyId, int limit) {
        String id = keyId + "/" + limit;
        StoredBucket bucket = stored.computeIfAbsent(id, i -> new StoredBucket(buckets, i,
                () -> BucketConfiguration.builder().addLimit(BucketShape.bandwidth(limit, period)).build()));
        try {
            RateDecision decision = BucketShape.decision(limit, bucket.take());
            cleanNowAndThen();
            return decision;
        } catch (RuntimeException e) {
            throw unavailable(e.getMessage());
        }
    }

    /**
     * One bucket as this process takes from it. Bucket4j's batching has a gap: a batch of takes that meets the bucket's
     * row without a state (a new bucket whose row another process, or this one's first take, has just inserted but
     * not yet given its first state, or a row the cleaner removed) is answered "bucket not found" as a whole, and
     * Bucket4j then throws for every take in it instead of creating the bucket as it does for a single take. So the
     * bucket is created by one take outside the batches (which creates it when missing) before the first batched
     * one, and again, once for all the takes of the failed batch, when a batch finds it gone.
     */
    private static final class StoredBucket {

        private final BucketProxy batched;
        private final BucketProxy single;
        /** How many times this process has made sure the bucket exists; 0 before the first time. */
        private long created;

        StoredBucket(ProxyManager<String> buckets, String id, Supplier<BucketConfiguration> configuration) {
            this.batched = buckets.builder().withOptimization(Optimizations.batching()).build(id, configuration);
            this.single = buckets.builder().build(id, configuration);
        }

        ConsumptionProbe take() {
            long seen = ensureCreated(0);
            try {
                return batched.tryConsumeAndReturnRemaining(1);
            } catch (RuntimeException e) {
                if (!notFound(e)) throw e;
                ensureCreated(seen); // the batch took nothing
                return batched.tryConsumeAndReturnRemaining(1);
            }
        }

        /** Creates the bucket in the store unless that was done after {@code seen}; the count after. */
        private synchronized long ensureCreated(long seen) {
            if (created == seen) {
                single.getAvailableTokens(); // a single command: Bucket4j creates the bucket when it is missing
                created++;
            }
            return created;
        }

        private static boolean notFound(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof BucketNotFoundException) return true;
            }
            return false;
        }
    }

    private ApiError unavailable(String why) {
        LOG.log(Level.ERROR, "the rate limit store (" + backend + ") failed: " + why);
        return new ApiError(503, ApiError.UNAVAILABLE, "The rate limit could not be checked; please try again.", null,
                "rate_limit_unavailable");
    }

    /** Rows of full buckets go now and then (Redis expires its keys itself). */
    private void cleanNowAndThen() {
        if (!(buckets instanceof ExpiredEntriesCleaner cleaner)) return;
        long last = lastCleaned.get();
        long now = System.nanoTime();
        if (now - last < CLEAN_EVERY_NANOS || !lastCleaned.compareAndSet(last, now)) return;
        try {
            cleaner.removeExpired(1000);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not remove expired rate limit buckets: " + e.getMessage());
        }
    }

    /** "PostgreSQL" or "Redis". */
    public String backend() {
        return backend;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "closing the rate limit store: " + e.getMessage());
        }
    }

    static String redactedRedis(String url) {
        return url.replaceAll("//[^@/]*@", "//***@");
    }
}
