package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.Account;
import dev.inferd.server.store.AccountStore;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.AuditEntry;
import dev.inferd.server.store.AuditLog;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyStore;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.store.User;
import dev.inferd.server.store.UserStore;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Accounts, their users and their API keys, every change written to the audit log. Whatever names a key takes
 * its account too, so no call reaches another account's key: a key id of another account is "not found".
 *
 * <pre>{@code
 * Accounts accounts = new Accounts(db, Clock.systemUTC());
 * Account acme = accounts.createAccount("acme", Actor.cli());
 * IssuedKey key = accounts.createKey(acme.id(), KeySpec.named("ci"), Actor.cli());
 * System.out.println(key.secret());   // shown once
 * }</pre>
 */
public final class Accounts {

    private final AccountStore accounts;
    private final KeyStore keys;
    private final UserStore users;
    private final AuditLog audit;
    private final Clock clock;

    public Accounts(Database db, Clock clock) {
        this.accounts = new AccountStore(db);
        this.keys = new KeyStore(db);
        this.users = new UserStore(db);
        this.audit = new AuditLog(db);
        this.clock = clock;
    }

    public Account createAccount(String name, Actor actor) {
        return createAccount(name, null, actor);
    }

    /** An account with its own rate limit (null: the deployment's); checked in full before anything is written. */
    public Account createAccount(String name, Integer requestsPerSecond, Actor actor) {
        InputRules.accountName(name);
        InputRules.rateLimit(requestsPerSecond);
        Account account = accounts.create(name, requestsPerSecond, clock.millis());
        record(account.id(), actor, "account.create", account.id(),
                "name=" + name + (requestsPerSecond == null ? "" : " rps=" + requestsPerSecond));
        return account;
    }

    public List<Account> listAccounts() {
        return accounts.list();
    }

    /** The account by name or id; text that cannot name one (control characters) finds nothing. */
    public Optional<Account> account(String nameOrId) {
        if (nameOrId == null || !InputRules.isWellFormed(nameOrId)) return Optional.empty();
        return accounts.byName(nameOrId).or(() -> accounts.byId(nameOrId));
    }

    public Account requireAccount(String nameOrId) {
        return account(nameOrId).orElseThrow(() -> new NoSuchElementException("no account " + nameOrId));
    }

    public void setAccountRateLimit(String accountId, Integer requestsPerSecond, Actor actor) {
        InputRules.rateLimit(requestsPerSecond);
        accounts.setRateLimit(accountId, requestsPerSecond);
        record(accountId, actor, "account.rate_limit", accountId, "rps=" + requestsPerSecond);
    }

    public User addUser(String accountId, String email, String password, Actor actor) {
        String address = InputRules.email(email);
        Passwords.check(password);
        requireAccountId(accountId);
        User user = users.create(accountId, address, Passwords.hash(password), clock.millis());
        record(accountId, actor, "user.create", user.id(), "email=" + user.email());
        return user;
    }

    public IssuedKey createKey(String accountId, KeySpec spec, Actor actor) {
        requireAccountId(accountId);
        long now = clock.millis();
        InputRules.requireFutureExpiry(spec.expiresAt(), now);
        String secret = Secrets.newApiKey();
        var key = new ApiKey(RowIds.next("key"), accountId, spec.name(), Secrets.visiblePrefix(secret), spec.scopes(),
                spec.expiresAt(), now, null, spec.rateLimit(), null);
        keys.insert(key, Secrets.hash(secret));
        record(accountId, actor, "key.create", key.id(), describe(spec));
        return new IssuedKey(key, secret);
    }

    public List<ApiKey> listKeys(String accountId) {
        return keys.list(accountId);
    }

    public ApiKey key(String accountId, String keyId) {
        if (keyId == null || !InputRules.isWellFormed(keyId)) throw new NoSuchElementException("no such key");
        return keys.byId(accountId, keyId).orElseThrow(() -> new NoSuchElementException("no key " + keyId));
    }

    /** The key with this id, whichever account holds it: its id alone names it. */
    public ApiKey key(String keyId) {
        return keys.byId(keyId).orElseThrow(() -> new NoSuchElementException("no key " + keyId));
    }

    /**
     * A new secret for the key; its previous secrets keep working for {@code grace} (zero ends them at once; at most
     * {@link InputRules#MAX_GRACE}).
     *
     * @throws IllegalStateException for a revoked key
     */
    public IssuedKey rotateKey(String accountId, String keyId, Duration grace, Actor actor) {
        InputRules.grace(grace);
        ApiKey key = key(accountId, keyId);
        if (key.isRevoked()) throw new IllegalStateException("key " + keyId + " is revoked");
        String secret = Secrets.newApiKey();
        long now = clock.millis();
        keys.rotate(keyId, Secrets.hash(secret), Secrets.visiblePrefix(secret), now, now + grace.toMillis());
        record(accountId, actor, "key.rotate", keyId, "grace_seconds=" + grace.toSeconds());
        return new IssuedKey(key(accountId, keyId), secret);
    }

    public ApiKey revokeKey(String accountId, String keyId, Actor actor) {
        key(accountId, keyId);
        keys.revoke(keyId, clock.millis());
        record(accountId, actor, "key.revoke", keyId, null);
        return key(accountId, keyId);
    }

    /** Changes a key's name, scopes, expiry and rate limit. */
    public ApiKey updateKey(String accountId, String keyId, KeySpec spec, Actor actor) {
        key(accountId, keyId);
        InputRules.requireFutureExpiry(spec.expiresAt(), clock.millis());
        keys.update(keyId, spec.name(), spec.scopes(), spec.expiresAt(), spec.rateLimit());
        record(accountId, actor, "key.update", keyId, describe(spec));
        return key(accountId, keyId);
    }

    public List<AuditEntry> audit(String accountId, int limit) {
        return audit.list(accountId, limit);
    }

    private void requireAccountId(String accountId) {
        if (accounts.byId(accountId).isEmpty()) throw new NoSuchElementException("no account " + accountId);
    }

    private void record(String accountId, Actor actor, String action, String target, String detail) {
        audit.append(accountId, actor.who(), action, target, detail, actor.from(), clock.millis());
    }

    private static String describe(KeySpec spec) {
        return "name=" + spec.name() + " models=" + String.join(",", spec.scopes().models()) + " endpoints="
                + String.join(",", spec.scopes().endpoints()) + " expires_at=" + spec.expiresAt() + " rps=" + spec.rateLimit();
    }
}
