package dev.inferd.server.cloud.shared;

import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.ratelimit.RateDecision;
import dev.inferd.server.cloud.ratelimit.SharedRateLimiter;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-key limits in a real Redis ({@code --redis}): one bucket for two gateways, its headers exact. */
class RedisRateLimitTest {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) redis.close();
    }

    @Test
    void twoLimitersOnOneRedisShareOneBucketAndReportItsState() {
        try (var a = SharedRateLimiter.redis(redis.url(), Duration.ofMinutes(1));
             var b = SharedRateLimiter.redis(redis.url(), Duration.ofMinutes(1))) {
            assertThat(a.backend()).isEqualTo("Redis");
            for (int i = 0; i < 10; i++) {
                RateDecision d = (i % 2 == 0 ? a : b).tryAcquire("key-1", 10);
                assertThat(d.allowed()).isTrue();
                assertThat(d.remaining()).isEqualTo(9 - i);
                assertThat(d.limit()).isEqualTo(10);
            }
            RateDecision refused = b.tryAcquire("key-1", 10);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.remaining()).isZero();
            // one token comes back every 6 s; the bucket is full again a minute after it emptied
            assertThat(refused.retryNanos()).isBetween(Duration.ofSeconds(5).toNanos(), Duration.ofSeconds(6).toNanos());
            assertThat(refused.retryAfterSeconds()).isEqualTo(6);
            assertThat(refused.resetNanos()).isBetween(Duration.ofSeconds(59).toNanos(), Duration.ofSeconds(60).toNanos());
            // another key, and the same key with another limit, have buckets of their own
            assertThat(a.tryAcquire("key-2", 10).allowed()).isTrue();
            assertThat(a.tryAcquire("key-1", 11).remaining()).isEqualTo(10);
        }
    }

    @Test
    void oneKeysLimitHoldsForTwoGatewaysWithTheirBucketsInRedis() throws Exception {
        try (var gateways = new TwoGateways(TestDatabases.url(TestDatabases.SQLITE), redis.url())) {
            String account = gateways.a.accounts().createAccount("acme", TwoGateways.TEST).id();
            var key = gateways.a.accounts().createKey(account,
                    new KeySpec("k", KeyScopes.EVERYTHING, null, SharedLimitCheck.LIMIT), TwoGateways.TEST);
            SharedLimitCheck.across(gateways, key.secret());
        }
    }

    @Test
    void anUnreachableRedisFailsAtStartWithoutItsPassword() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SharedRateLimiter.redis("redis://user:s3cret@127.0.0.1:1", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageNotContaining("s3cret");
    }
}
