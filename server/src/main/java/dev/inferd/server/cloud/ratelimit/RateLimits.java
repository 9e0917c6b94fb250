package dev.inferd.server.cloud.ratelimit;

/**
 * Where a key's requests-per-second limit comes from: the key's own, else its account's, else the deployment's
 * (60 unless configured).
 */
public record RateLimits(int defaultRequestsPerSecond) {

    public static final int DEFAULT_REQUESTS_PER_SECOND = 60;

    public RateLimits {
        if (defaultRequestsPerSecond < 1) throw new IllegalArgumentException("a rate limit is at least 1 request per second");
    }

    public static RateLimits defaults() {
        return new RateLimits(DEFAULT_REQUESTS_PER_SECOND);
    }

    public int resolve(Integer keyLimit, Integer accountLimit) {
        if (keyLimit != null) return keyLimit;
        if (accountLimit != null) return accountLimit;
        return defaultRequestsPerSecond;
    }
}
