package dev.inferd.server.cloud.auth;

import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.store.AccountStore;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyStore;

import java.time.Clock;

/**
 * Turns the key a request presents ({@code Authorization: Bearer sk-...} or {@code x-api-key: sk-...}) into a {@link Principal}, or a 401 in OpenAI's shape.
 * Every call reads the database, so a revocation, rotation or expiry made by any process counts on the next
 * request. The secret itself goes nowhere: messages show at most its visible prefix.
 */
public final class Authenticator {

    public static final String AUTHENTICATION_ERROR = "authentication_error";
    public static final String PERMISSION_ERROR = "permission_error";
    /** Writing last-used at most this often per key keeps a write off most requests. */
    private static final long LAST_USED_GRANULARITY_MILLIS = 10_000;

    private final KeyStore keys;
    private final AccountStore accounts;
    private final Clock clock;

    public Authenticator(Database db, Clock clock) {
        this.keys = new KeyStore(db);
        this.accounts = new AccountStore(db);
        this.clock = clock;
    }

    /**
     * The key the request presents ({@link Credentials}).
     *
     * @throws ApiError 401 when no key is presented, or two, or a malformed one, or the key is unknown, expired or
     *                  revoked
     */
    public Principal authenticate(ServerRequest request) {
        String secret = Credentials.secret(request);
        if (secret == null) {
            throw unauthenticated("You didn't provide an API key. You need to provide your API key in an Authorization "
                    + "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", "missing_api_key");
        }
        if (!Secrets.looksLikeApiKey(secret)) {
            throw unauthenticated("Incorrect API key provided. API keys look like sk- and 43 characters; find yours "
                    + "in the dashboard under Settings > API Keys.", "invalid_api_key");
        }
        String hash = Secrets.hash(secret);
        var match = keys.bySecretHash(hash).orElseThrow(() -> incorrect(secret));
        // The index lookup compares hashes, which tell nothing about the secret; the check itself is constant-time.
        if (!Secrets.matches(secret, match.secretHash())) throw incorrect(secret);
        long now = clock.millis();
        var key = match.key();
        if (key.isRevoked()) {
            throw unauthenticated("The API key " + Secrets.visiblePrefix(secret) + "... has been revoked.", "revoked_api_key");
        }
        if (key.isExpired(now)) {
            throw unauthenticated("The API key " + Secrets.visiblePrefix(secret) + "... has expired.", "expired_api_key");
        }
        if (match.secretExpiresAt() != null && match.secretExpiresAt() <= now) {
            throw unauthenticated("The API key " + Secrets.visiblePrefix(secret) + "... was rotated and its grace period "
                    + "is over; use the new secret.", "rotated_api_key");
        }
        var account = accounts.byId(key.accountId()).orElseThrow(() -> incorrect(secret));
        if (key.lastUsedAt() == null || now - key.lastUsedAt() >= LAST_USED_GRANULARITY_MILLIS) keys.touch(key.id(), now);
        return new Principal(key, account);
    }

    public static ApiError forbidden(String message) {
        return new ApiError(403, PERMISSION_ERROR, message, null, "insufficient_permissions");
    }

    private static ApiError incorrect(String secret) {
        return unauthenticated("Incorrect API key provided: " + Secrets.visiblePrefix(secret) + "... You can find your "
                + "API keys in the dashboard under Settings > API Keys.", "invalid_api_key");
    }

    static ApiError unauthenticated(String message, String reason) {
        return new ApiError(401, AUTHENTICATION_ERROR, message, null, reason);
    }
}
