package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.KeyScopes;

/** What a new key is to be: a name, scopes, an optional expiry (epoch ms) and an optional rate limit (requests/s). */
public record KeySpec(String name, KeyScopes scopes, Long expiresAt, Integer rateLimit) {

    public KeySpec {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a key needs a name");
        if (name.length() > 200) throw new IllegalArgumentException("a key's name may have at most 200 characters");
        if (scopes == null) scopes = KeyScopes.EVERYTHING;
        if (rateLimit != null && rateLimit < 1) throw new IllegalArgumentException("a rate limit is at least 1 request per second");
    }

    public static KeySpec named(String name) {
        return new KeySpec(name, KeyScopes.EVERYTHING, null, null);
    }
}
