package dev.inferd.server.cloud.auth;

import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.store.AccountStore;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyStore;

import dev.inferd.server.store.StoreChanges;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns the key a request presents ({@code Authorization: Bearer sk-...} or {@code x-api-key: sk-...}) into a {@link Principal}, or a 401 in OpenAI's shape.
 * The secret itself goes nowhere: messages show at most its visible prefix.
 *
 * <p>When the database tells every process of changes (PostgreSQL's {@code LISTEN/NOTIFY}, {@link StoreChanges}),
 * a key found is kept for a while and forgotten as soon as any key, secret or account changes: a revocation or
 * rotation made by any process counts everywhere within a second, and most requests cost no query. Otherwise
 * (SQLite, which the CLI may change from another process) every call reads the database. Expiry is judged on
 * every call. Unknown secrets are never kept, so a key just created works at once.
 */
public final class Authenticator {

    public static final String AUTHENTICATION_ERROR = "authentication_error";
    public static final String PERMISSION_ERROR = "permission_error";
    /** Writing last-used at most this often per key keeps a write off most requests. */
    private static final long LAST_USED_GRANULARITY_MILLIS = 10_000;

    /** How long a key found stays without a word from the database: a bound in case a notification is lost. */
    public static final Duration CACHE_LIFETIME = Duration.ofSeconds(30);
    private static final int CACHE_MAX_ENTRIES = 100_000;

    private record Found(KeyStore.Match match, dev.inferd.server.store.Account account, long foundAtNanos) {
    }

    private final KeyStore keys;
    private final AccountStore accounts;
    private final Clock clock;
    private final long cacheNanos;
    private final Map<String, Found> found = new ConcurrentHashMap<>();
    /** Moves on every invalidation: a lookup that began before one does not keep what it read. */
    private final AtomicLong generation = new AtomicLong();
    /** When this process last wrote each key's last-used time (the cached key's own field goes stale). */
    private final Map<String, Long> touched = new ConcurrentHashMap<>();
    private final StoreChanges.Subscription subscription;

    /** Caches keys found when {@code db} tells of changes, for {@link #CACHE_LIFETIME} at most. */
    public Authenticator(Database db, Clock clock) {
        this(db, clock, CACHE_LIFETIME);
    }

    public Authenticator(Database db, Clock clock, Duration cacheLifetime) {
        this.keys = new KeyStore(db);
        this.accounts = new AccountStore(db);
        this.clock = clock;
        boolean told = db.changes().tellsOtherProcesses();
        this.cacheNanos = told ? cacheLifetime.toNanos() : 0;
        this.subscription = told && cacheNanos > 0
                ? db.changes().subscribe(StoreChanges.Topic.KEYS, this::forgetAll)
                : () -> { };
    }

    /** Forgets every key found: the next request of each reads the database. */
    public void forgetAll() {
        generation.incrementAndGet();
        found.clear();
    }

    /** Stops listening for changes. */
    public void close() {
        subscription.close();
        forgetAll();
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
        Found lookup = lookUp(hash);
        if (lookup == null) throw incorrect(secret);
        var match = lookup.match();
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
        var account = lookup.account();
        if (account == null) throw incorrect(secret);
        long lastUsed = Math.max(key.lastUsedAt() == null ? Long.MIN_VALUE : key.lastUsedAt(),
                touched.getOrDefault(key.id(), Long.MIN_VALUE));
        if (lastUsed == Long.MIN_VALUE || now - lastUsed >= LAST_USED_GRANULARITY_MILLIS) {
            touched.put(key.id(), now);
            keys.touch(key.id(), now);
        }
        return new Principal(key, account);
    }

    /** The key of {@code hash} with its account (null when the account is gone), or null when unknown. */
    private Found lookUp(String hash) {
        long nanos = System.nanoTime();
        if (cacheNanos > 0) {
            Found cached = found.get(hash);
            if (cached != null && nanos - cached.foundAtNanos() < cacheNanos) return cached;
        }
        long before = generation.get();
        var match = keys.bySecretHash(hash).orElse(null);
        if (match == null) return null;
        var fresh = new Found(match, accounts.byId(match.key().accountId()).orElse(null), nanos);
        if (cacheNanos > 0) {
            if (found.size() >= CACHE_MAX_ENTRIES) found.clear();
            found.put(hash, fresh);
            // An invalidation during the read may have missed what was just put: take it out again.
            if (generation.get() != before) found.remove(hash, fresh);
        }
        return fresh;
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
