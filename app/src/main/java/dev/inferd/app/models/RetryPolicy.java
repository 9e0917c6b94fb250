package dev.inferd.app.models;

import java.time.Duration;

/**
 * How often and how patiently transient download failures (connection reset, 5xx, timeouts) are
 * retried: up to {@code maxAttempts} tries in a row without progress, waiting
 * {@code initialDelay}, then twice as long each time, never more than {@code maxDelay}.
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, Duration maxDelay, Sleeper sleeper) {
    public static final RetryPolicy DEFAULT = new RetryPolicy(6, Duration.ofSeconds(1), Duration.ofSeconds(30), Sleeper.REAL);

    /** Waits; tests pass one that does not. */
    @FunctionalInterface
    public interface Sleeper {
        Sleeper REAL = d -> Thread.sleep(d);

        void sleep(Duration d) throws InterruptedException;
    }

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    /** The wait before attempt {@code failures + 1}, after {@code failures} failures in a row. */
    public Duration delayAfter(int failures) {
        Duration d = initialDelay;
        for (int i = 1; i < failures && d.compareTo(maxDelay) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxDelay) > 0 ? maxDelay : d;
    }
}
