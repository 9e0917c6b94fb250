package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.KeyScopes;

/**
 * What a new key is to be: a name, scopes, an optional expiry (epoch ms) and an optional rate limit (requests/s).
 * The name, scopes and rate limit are checked by {@link InputRules} here; the expiry against the clock when the
 * key is made ({@link Accounts#createKey}).
 */
public record KeySpec(String name, KeyScopes scopes, Long expiresAt, Integer rateLimit) {

    public KeySpec {
        InputRules.keyName(name);
        if (scopes == null) scopes = KeyScopes.EVERYTHING;
        InputRules.scopeItems("models", scopes.models());
        InputRules.scopeItems("endpoints", scopes.endpoints());
        InputRules.rateLimit(rateLimit);
    }

    public static KeySpec named(String name) {
        return new KeySpec(name, KeyScopes.EVERYTHING, null, null);
    }
}
