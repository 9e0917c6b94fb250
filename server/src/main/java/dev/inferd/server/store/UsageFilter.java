package dev.inferd.server.store;

/**
 * Which usage to read: always one account's; optionally one key's, one model's, and a period
 * {@code [from, to)} in epoch ms (null for open).
 */
public record UsageFilter(String accountId, String keyId, String model, Long from, Long to) {

    public UsageFilter {
        if (accountId == null) throw new IllegalArgumentException("usage is read one account at a time");
    }

    public static UsageFilter account(String accountId) {
        return new UsageFilter(accountId, null, null, null, null);
    }

    public UsageFilter key(String keyId) {
        return new UsageFilter(accountId, keyId, model, from, to);
    }

    public UsageFilter model(String model) {
        return new UsageFilter(accountId, keyId, model, from, to);
    }

    public UsageFilter period(Long from, Long to) {
        return new UsageFilter(accountId, keyId, model, from, to);
    }
}
