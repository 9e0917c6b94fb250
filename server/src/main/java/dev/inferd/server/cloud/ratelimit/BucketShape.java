package dev.inferd.server.cloud.ratelimit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.ConsumptionProbe;

import java.time.Duration;

/** The one bucket shape every limiter uses, and how a probe of it reads as a {@link RateDecision}. */
final class BucketShape {

    private BucketShape() {
    }

    /** {@code limit} requests per {@code period}, refilled greedily, with a full period's worth at once. */
    static Bandwidth bandwidth(int limit, Duration period) {
        return Bandwidth.builder().capacity(limit).refillGreedy(limit, period).build();
    }

    static RateDecision decision(int limit, ConsumptionProbe probe) {
        return new RateDecision(probe.isConsumed(), limit, probe.getRemainingTokens(), probe.getNanosToWaitForReset(),
                probe.isConsumed() ? 0 : probe.getNanosToWaitForRefill());
    }
}
