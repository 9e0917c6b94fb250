package dev.inferd.server.cloud.ratelimit;

/**
 * One request's turn at its key's bucket: whether it may go, and what the {@code x-ratelimit-*} headers say.
 *
 * @param resetNanos time until the bucket is full again
 * @param retryNanos time until one more request may go (0 when this one went)
 */
public record RateDecision(boolean allowed, int limit, long remaining, long resetNanos, long retryNanos) {

    /** {@code Retry-After} in whole seconds, at least 1. */
    public int retryAfterSeconds() {
        return (int) Math.max(1, Math.ceilDiv(retryNanos, 1_000_000_000L));
    }

    /** A duration the way OpenAI writes {@code x-ratelimit-reset-*}: {@code 0s}, {@code 20ms}, {@code 1.2s}, {@code 6m0s}. */
    public static String goDuration(long nanos) {
        long millis = Math.ceilDiv(Math.max(0, nanos), 1_000_000L);
        if (millis == 0) return "0s";
        if (millis < 1000) return millis + "ms";
        if (millis < 60_000) {
            long tenths = Math.ceilDiv(millis, 100);
            return tenths % 10 == 0 ? (tenths / 10) + "s" : (tenths / 10) + "." + (tenths % 10) + "s";
        }
        long seconds = Math.ceilDiv(millis, 1000);
        return (seconds / 60) + "m" + (seconds % 60) + "s";
    }
}
