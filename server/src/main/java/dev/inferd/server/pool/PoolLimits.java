package dev.inferd.server.pool;

import java.time.Duration;

/**
 * How many models a {@link ModelPool} keeps loaded, and how requests wait for one that loads.
 *
 * @param maxLoaded models loaded (or loading) at once; 0 for no limit but the memory budget
 * @param memoryBudget bytes all loaded models may take together
 * @param loadWait how long a request waits for its model to load before a 503 with {@code Retry-After}
 * @param retryAfterSeconds the {@code Retry-After} of that 503
 * @param failedHold how long a failed load is reported as failed before a request tries it again
 */
public record PoolLimits(int maxLoaded, long memoryBudget, Duration loadWait, int retryAfterSeconds, Duration failedHold) {

    public static final Duration DEFAULT_LOAD_WAIT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_FAILED_HOLD = Duration.ofSeconds(30);

    public PoolLimits {
        if (maxLoaded < 0) throw new IllegalArgumentException("the most loaded models must not be negative");
        if (memoryBudget < 1) throw new IllegalArgumentException("the memory budget must be positive");
        if (loadWait.isNegative()) throw new IllegalArgumentException("the load wait must not be negative");
        if (retryAfterSeconds < 1) throw new IllegalArgumentException("Retry-After must be at least 1 second");
        if (failedHold.isNegative()) throw new IllegalArgumentException("the failed hold must not be negative");
    }

    /** Three quarters of the machine's memory, no count limit, a 10 s wait. */
    public static PoolLimits defaults(long physicalMemoryBytes) {
        return new PoolLimits(0, Math.max(1, physicalMemoryBytes / 4 * 3), DEFAULT_LOAD_WAIT, 2, DEFAULT_FAILED_HOLD);
    }

    public PoolLimits withMaxLoaded(int max) {
        return new PoolLimits(max, memoryBudget, loadWait, retryAfterSeconds, failedHold);
    }

    public PoolLimits withMemoryBudget(long bytes) {
        return new PoolLimits(maxLoaded, bytes, loadWait, retryAfterSeconds, failedHold);
    }

    public PoolLimits withLoadWait(Duration wait) {
        return new PoolLimits(maxLoaded, memoryBudget, wait, retryAfterSeconds, failedHold);
    }
}
