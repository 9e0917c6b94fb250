package dev.inferd.app.models;

import java.util.function.LongSupplier;

/** Speed and time left of one transfer, averaged since it (re)started. */
final class TransferRate {
    private final LongSupplier nanoClock;
    private long startNanos;
    private long startBytes;
    long total = -1;
    long current;

    TransferRate(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    void start(long total, long resumedAt) {
        this.total = total;
        this.startBytes = resumedAt;
        this.current = resumedAt;
        this.startNanos = nanoClock.getAsLong();
    }

    long elapsedNanos() {
        return nanoClock.getAsLong() - startNanos;
    }

    /** Bytes per second since the start, 0 before any time has passed. */
    double bytesPerSecond() {
        long nanos = elapsedNanos();
        return nanos <= 0 ? 0 : (current - startBytes) * 1e9 / nanos;
    }

    /** Seconds left at the current speed, or -1 when unknown. */
    long secondsLeft() {
        double speed = bytesPerSecond();
        return total < 0 || speed <= 0 ? -1 : (long) Math.ceil((total - current) / speed);
    }

    /** Whole percent done, or -1 when the total is unknown. */
    int percent() {
        return total <= 0 ? -1 : (int) (current * 100 / total);
    }
}
