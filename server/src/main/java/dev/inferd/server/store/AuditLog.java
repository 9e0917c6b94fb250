package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The audit_log table: appended to, never changed. */
public final class AuditLog {
    private final Database db;

    public AuditLog(Database db) {
        this.db = db;
    }

    public AuditEntry append(String accountId, String actor, String action, String target, String detail,
                             String source, long now) {
        var entry = new AuditEntry(RowIds.next("aud"), accountId, actor, action, target, detail, source, now);
        db.update("INSERT INTO audit_log (id, account_id, actor, action, target, detail, source, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                entry.id(), accountId, actor, action, Database.nullableText(target), Database.nullableText(detail),
                Database.nullableText(source), now);
        return entry;
    }

    /** The account's entries, newest first. */
    public List<AuditEntry> list(String accountId, int limit) {
        return db.query("SELECT * FROM audit_log WHERE account_id = ? ORDER BY at DESC, id DESC LIMIT ?", AuditLog::row,
                accountId, limit);
    }

    static AuditEntry row(ResultSet r) throws SQLException {
        return new AuditEntry(r.getString("id"), r.getString("account_id"), r.getString("actor"), r.getString("action"),
                r.getString("target"), r.getString("detail"), r.getString("source"), r.getLong("at"));
    }
}
