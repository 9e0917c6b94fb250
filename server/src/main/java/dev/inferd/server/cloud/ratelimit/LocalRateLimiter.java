package dev.inferd.server.cloud.ratelimit;

import io.github.bucket4j.Bucket;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The buckets held in this process (Bucket4j's local buckets): right for one process on its SQLite file, and for
 * what is counted per process anyway (sign-in attempts).
 */
public final class LocalRateLimiter implements RateLimiter {

    private record Entry(int limit, Bucket bucket) {
    }

    private final Map<String, Entry> buckets = new ConcurrentHashMap<>();
    private final Duration period;

    /** Limits per second. */
    public LocalRateLimiter() {
        this(Duration.ofSeconds(1));
    }

    /** Limits per {@code period} (sign-in attempts per minute, say). */
    public LocalRateLimiter(Duration period) {
        this.period = period;
    }

    @Override
    public RateDecision tryAcquire(String keyId, int limit) {
        Entry entry = buckets.compute(keyId, (id, old) -> old != null && old.limit() == limit ? old
                : new Entry(limit, Bucket.builder().addLimit(BucketShape.bandwidth(limit, period)).build()));
        return BucketShape.decision(limit, entry.bucket().tryConsumeAndReturnRemaining(1));
    }
}
