package dev.inferd.server.store;

/**
 * The requests of one key that were refused within one minute: {@code forbidden} by the key's scopes (403),
 * {@code rateLimited} by its rate limit (429).
 *
 * @param minute the minute's start, epoch milliseconds
 */
public record RefusedRequests(String accountId, String keyId, long minute, long forbidden, long rateLimited) {

    public static final long MINUTE_MILLIS = 60_000L;

    /** The start of the minute {@code atMillis} falls in. */
    public static long minuteOf(long atMillis) {
        return Math.floorDiv(atMillis, MINUTE_MILLIS) * MINUTE_MILLIS;
    }

    public RefusedRequests plus(RefusedRequests other) {
        return new RefusedRequests(accountId, keyId, minute, forbidden + other.forbidden, rateLimited + other.rateLimited);
    }

    public long total() {
        return forbidden + rateLimited;
    }
}
