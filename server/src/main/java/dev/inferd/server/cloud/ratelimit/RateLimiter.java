package dev.inferd.server.cloud.ratelimit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per API key (Bucket4j), refilled greedily at the key's limit per second with room for one
 * second's worth at once. A key whose limit changes gets a fresh bucket. Held in this process: several gateways
 * in front of one database each enforce the limit on their own share of the traffic.
 */
public final class RateLimiter {

    private record Entry(int limit, Bucket bucket) {
    }

    private final Map<String, Entry> buckets = new ConcurrentHashMap<>();
    private final Duration period;

    /** Limits per second. */
    public RateLimiter() {
        this(Duration.ofSeconds(1));
    }

    /** Limits per {@code period} (sign-in attempts per minute, say). */
    public RateLimiter(Duration period) {
        this.period = period;
    }

    /** Takes one request from {@code keyId}'s bucket of {@code limit} requests per period. */
    public RateDecision tryAcquire(String keyId, int limit) {
        Entry entry = buckets.compute(keyId, (id, old) -> old != null && old.limit() == limit ? old : create(limit, period));
        var probe = entry.bucket().tryConsumeAndReturnRemaining(1);
        return new RateDecision(probe.isConsumed(), limit, probe.getRemainingTokens(), probe.getNanosToWaitForReset(),
                probe.isConsumed() ? 0 : probe.getNanosToWaitForRefill());
    }

    private static Entry create(int limit, Duration period) {
        Bandwidth bandwidth = Bandwidth.builder().capacity(limit).refillGreedy(limit, period).build();
        return new Entry(limit, Bucket.builder().addLimit(bandwidth).build());
    }
}
