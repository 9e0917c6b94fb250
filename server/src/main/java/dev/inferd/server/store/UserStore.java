package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The users and sessions tables. A session is found by the hash of its cookie's token. */
public final class UserStore {

    /** A signed-in session: its user and the token its forms must carry. */
    public record Session(User user, String csrfToken, long expiresAt) {
    }

    private final Database db;

    public UserStore(Database db) {
        this.db = db;
    }

    /** @throws IllegalArgumentException when the e-mail is taken, too long or holds control characters */
    public User create(String accountId, String email, String passwordHash, long now) {
        Columns.require("an e-mail address", email, Columns.EMAIL);
        if (byEmail(email).isPresent()) throw new IllegalArgumentException("a user " + email + " exists already");
        var user = new User(RowIds.next("user"), accountId, email, passwordHash, now);
        db.update("INSERT INTO users (id, account_id, email, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                user.id(), accountId, email, passwordHash, now);
        return user;
    }

    public Optional<User> byEmail(String email) {
        if (!Columns.isStorable(email)) return Optional.empty();
        return db.queryOne("SELECT * FROM users WHERE email = ?", UserStore::row, email);
    }

    public List<User> list(String accountId) {
        return db.query("SELECT * FROM users WHERE account_id = ? ORDER BY created_at", UserStore::row, accountId);
    }

    public void startSession(String tokenHash, String userId, String csrfToken, long now, long expiresAt) {
        db.update("INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                tokenHash, userId, csrfToken, now, expiresAt);
    }

    public Optional<Session> session(String tokenHash, long now) {
        return db.queryOne("SELECT u.*, s.csrf_token, s.expires_at AS session_expires_at FROM sessions s"
                        + " JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?",
                r -> new Session(row(r), r.getString("csrf_token"), r.getLong("session_expires_at")), tokenHash, now);
    }

    public void endSession(String tokenHash) {
        db.update("DELETE FROM sessions WHERE token_hash = ?", tokenHash);
    }

    static User row(ResultSet r) throws SQLException {
        return new User(r.getString("id"), r.getString("account_id"), r.getString("email"), r.getString("password_hash"),
                r.getLong("created_at"));
    }
}
