package dev.inferd.server.store;

/**
 * An API key as stored: never its secret, only the secret's visible {@code prefix} (such as {@code sk-AbC123}).
 * Times are epoch milliseconds; {@code expiresAt}, {@code lastUsedAt}, {@code revokedAt} and {@code rateLimit}
 * (requests per second) may be null.
 */
public record ApiKey(String id, String accountId, String name, String prefix, KeyScopes scopes, Long expiresAt,
                     long createdAt, Long lastUsedAt, Integer rateLimit, Long revokedAt) {

    public boolean isRevoked() {
        return revokedAt != null;
    }

    public boolean isExpired(long now) {
        return expiresAt != null && expiresAt <= now;
    }
}
