package dev.inferd.app;

import dev.inferd.server.cloud.CloudConfig;
import picocli.CommandLine.Option;

/** {@code --redis URL}: the per-key rate limit buckets in Redis, for the commands that enforce limits. */
public final class RedisOption {

    @Option(names = "--redis", paramLabel = "URL",
            description = "keep the per-key rate limits in this Redis (redis://HOST:PORT, rediss:// for TLS) instead "
                    + "of the database; by default they are in PostgreSQL when the database is, else in this process")
    String redis;

    /** {@code config} with the Redis URL of {@code --redis}, when given (it wins over the config file's). */
    public CloudConfig applyTo(CloudConfig config) {
        return redis == null ? config : config.withRedis(redis);
    }
}
