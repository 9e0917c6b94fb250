package dev.inferd.server.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The api_keys and key_secrets tables. A secret is found by its hash; the key row says what it may do. */
public final class KeyStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    /** A key found by one of its secrets, with that secret's own end (a rotated-out secret's grace period). */
    public record Match(ApiKey key, String secretHash, Long secretExpiresAt) {
    }

    private final Database db;

    public KeyStore(Database db) {
        this.db = db;
    }

    /** Inserts the key and its first secret in one transaction. */
    public void insert(ApiKey key, String secretHash) {
        Columns.require("a key's name", key.name(), Columns.KEY_NAME);
        db.inTransaction(tx -> {
            tx.update("INSERT INTO api_keys (id, account_id, name, prefix, scope_models, scope_endpoints, expires_at,"
                            + " created_at, last_used_at, rate_limit_rps, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    key.id(), key.accountId(), key.name(), key.prefix(), json(key.scopes().models()),
                    json(key.scopes().endpoints()), Database.nullableLong(key.expiresAt()), key.createdAt(),
                    Database.nullableLong(key.lastUsedAt()), Database.nullableInt(key.rateLimit()),
                    Database.nullableLong(key.revokedAt()));
            tx.update("INSERT INTO key_secrets (secret_hash, key_id, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                    secretHash, key.id(), key.prefix(), key.createdAt(), Database.Null.BIGINT);
            return null;
        });
    }

    /** The key holding the secret with this hash, whatever its state. */
    public Optional<Match> bySecretHash(String secretHash) {
        return db.queryOne("SELECT k.*, s.secret_hash, s.expires_at AS secret_expires_at FROM key_secrets s JOIN api_keys k ON k.id = s.key_id"
                        + " WHERE s.secret_hash = ?",
                r -> new Match(row(r), r.getString("secret_hash"), Database.longOrNull(r, "secret_expires_at")), secretHash);
    }

    /** The key with this id in this account: another account's key is not found. */
    public Optional<ApiKey> byId(String accountId, String keyId) {
        if (!Columns.isStorable(keyId)) return Optional.empty();
        return db.queryOne("SELECT * FROM api_keys WHERE id = ? AND account_id = ?", KeyStore::row, keyId, accountId);
    }

    /** The key with this id, in whichever account holds it (key ids are unique across accounts). */
    public Optional<ApiKey> byId(String keyId) {
        return db.queryOne("SELECT * FROM api_keys WHERE id = ?", KeyStore::row, keyId);
    }

    public List<ApiKey> list(String accountId) {
        return db.query("SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id", KeyStore::row, accountId);
    }

    /**
     * Gives the key a new secret; the secrets it had stay valid until {@code oldSecretsEnd} (now, to end them at
     * once), unless they end sooner already.
     */
    public void rotate(String keyId, String newSecretHash, String newPrefix, long now, long oldSecretsEnd) {
        db.inTransaction(tx -> {
            tx.update("UPDATE key_secrets SET expires_at = ? WHERE key_id = ? AND (expires_at IS NULL OR expires_at > ?)",
                    oldSecretsEnd, keyId, oldSecretsEnd);
            tx.update("INSERT INTO key_secrets (secret_hash, key_id, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                    newSecretHash, keyId, newPrefix, now, Database.Null.BIGINT);
            tx.update("UPDATE api_keys SET prefix = ? WHERE id = ?", newPrefix, keyId);
            return null;
        });
    }

    public void revoke(String keyId, long now) {
        db.update("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now, keyId);
    }

    public void update(String keyId, String name, KeyScopes scopes, Long expiresAt, Integer rateLimit) {
        Columns.require("a key's name", name, Columns.KEY_NAME);
        db.update("UPDATE api_keys SET name = ?, scope_models = ?, scope_endpoints = ?, expires_at = ?, rate_limit_rps = ?"
                        + " WHERE id = ?", name, json(scopes.models()), json(scopes.endpoints()),
                Database.nullableLong(expiresAt), Database.nullableInt(rateLimit), keyId);
    }

    public void touch(String keyId, long now) {
        db.update("UPDATE api_keys SET last_used_at = ? WHERE id = ?", now, keyId);
    }

    static ApiKey row(ResultSet r) throws SQLException {
        return new ApiKey(r.getString("id"), r.getString("account_id"), r.getString("name"), r.getString("prefix"),
                new KeyScopes(strings(r.getString("scope_models")), strings(r.getString("scope_endpoints"))),
                Database.longOrNull(r, "expires_at"), r.getLong("created_at"), Database.longOrNull(r, "last_used_at"),
                Database.intOrNull(r, "rate_limit_rps"), Database.longOrNull(r, "revoked_at"));
    }

    private static String json(List<String> values) {
        try {
            return JSON.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> strings(String json) {
        try {
            return JSON.readValue(json, STRINGS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a key's scopes are not a JSON list: " + json, e);
        }
    }
}
