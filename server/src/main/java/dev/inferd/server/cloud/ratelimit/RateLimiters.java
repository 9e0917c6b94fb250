package dev.inferd.server.cloud.ratelimit;

import dev.inferd.server.store.Database;

import java.time.Duration;

/** Which buckets a deployment's per-key limits use. */
public final class RateLimiters {

    private RateLimiters() {
    }

    /**
     * Redis's when {@code redisUrl} is given; else PostgreSQL's when the store is PostgreSQL (several gateways
     * share it); else this process's own (an SQLite file has one process).
     */
    public static RateLimiter perSecond(Database db, String redisUrl) {
        Duration second = Duration.ofSeconds(1);
        if (redisUrl != null && !redisUrl.isBlank()) return SharedRateLimiter.redis(redisUrl, second);
        if (db.isPostgres()) return SharedRateLimiter.postgres(db, second);
        return new LocalRateLimiter(second);
    }
}
