package dev.inferd.server.cloud.ratelimit;

/**
 * A token bucket per API key, refilled greedily at the key's limit per period with room for one period's worth
 * at once: {@link LocalRateLimiter} within one process, {@link SharedRateLimiter} across every process on one
 * PostgreSQL or Redis. A key whose limit changes gets a fresh bucket.
 */
public interface RateLimiter extends AutoCloseable {

    /** Takes one request from {@code keyId}'s bucket of {@code limit} requests per period. */
    RateDecision tryAcquire(String keyId, int limit);

    /** Lets go of connections; a no-op for the in-process buckets. */
    @Override
    default void close() {
    }
}
