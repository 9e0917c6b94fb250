package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.ApiKey;

/** A key just created or rotated, with its secret: the only time the secret exists outside its holder. */
public record IssuedKey(ApiKey key, String secret) {

    @Override
    public String toString() {
        return "IssuedKey[" + key.id() + ", " + key.prefix() + "...]"; // never the secret
    }
}
