package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The accounts table. */
public final class AccountStore {
    private final Database db;

    public AccountStore(Database db) {
        this.db = db;
    }

    /** @throws IllegalArgumentException when the name is taken, too long or holds control characters */
    public Account create(String name, Integer rateLimit, long now) {
        Columns.require("an account name", name, Columns.ACCOUNT_NAME);
        if (byName(name).isPresent()) throw new IllegalArgumentException("an account named " + name + " exists already");
        var account = new Account(RowIds.next("acct"), name, rateLimit, now);
        db.update("INSERT INTO accounts (id, name, rate_limit_rps, created_at) VALUES (?, ?, ?, ?)",
                account.id(), name, Database.nullableInt(rateLimit), now);
        return account;
    }

    public Optional<Account> byName(String name) {
        if (!Columns.isStorable(name)) return Optional.empty();
        return db.queryOne("SELECT * FROM accounts WHERE name = ?", AccountStore::row, name);
    }

    public Optional<Account> byId(String id) {
        if (!Columns.isStorable(id)) return Optional.empty();
        return db.queryOne("SELECT * FROM accounts WHERE id = ?", AccountStore::row, id);
    }

    public List<Account> list() {
        return db.query("SELECT * FROM accounts ORDER BY created_at, name", AccountStore::row);
    }

    public void setRateLimit(String id, Integer rateLimit) {
        db.update("UPDATE accounts SET rate_limit_rps = ? WHERE id = ?", Database.nullableInt(rateLimit), id);
    }

    static Account row(ResultSet r) throws SQLException {
        return new Account(r.getString("id"), r.getString("name"), Database.intOrNull(r, "rate_limit_rps"),
                r.getLong("created_at"));
    }
}
