package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/** The workers table: the worker registry that gateways route by. */
public final class WorkerStore {
    private final Database db;

    public WorkerStore(Database db) {
        this.db = db;
    }

    /** Writes the worker's row, counting one more renewal; creates it on the first call. */
    public void renew(WorkerRow w, long nowMillis) {
        String models = String.join("\n", w.models());
        String loading = String.join("\n", w.loading());
        db.inTransaction(tx -> {
            int updated = tx.update("UPDATE workers SET address = ?, models = ?, loading = ?, budget_bytes = ?,"
                            + " free_bytes = ?, running = ?, waiting = ?, kv_permille = ?, draining = ?, beats = beats + 1, renewed_at = ? WHERE id = ?",
                    w.address(), models, loading, w.budgetBytes(), w.freeBytes(), w.running(), w.waiting(),
                    permille(w.kvUse()), w.draining() ? 1 : 0, nowMillis, w.id());
            if (updated == 0) {
                tx.update("INSERT INTO workers (id, address, models, loading, budget_bytes, free_bytes, running, waiting,"
                                + " kv_permille, draining, beats, started_at, renewed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
                        w.id(), w.address(), models, loading, w.budgetBytes(), w.freeBytes(), w.running(), w.waiting(),
                        permille(w.kvUse()), w.draining() ? 1 : 0, nowMillis, nowMillis);
            }
            return null;
        });
    }

    /** Every registered worker, the ones that stopped renewing too (the caller judges liveness). */
    public List<WorkerRow> list() {
        return db.query("SELECT * FROM workers ORDER BY id", WorkerStore::row);
    }

    /** Takes the worker out of the registry (it stops cleanly); false when it was not there. */
    public boolean remove(String id) {
        return db.update("DELETE FROM workers WHERE id = ?", id) > 0;
    }

    /** Removes the rows not renewed since {@code olderThanMillis}: workers that died long ago. */
    public int removeStale(long olderThanMillis) {
        return db.update("DELETE FROM workers WHERE renewed_at < ?", olderThanMillis);
    }

    /** KV use is kept in thousandths: exact enough to route by, and an integer on every database. */
    private static int permille(double share) {
        return (int) Math.round(Math.clamp(share, 0, 1) * 1000);
    }

    private static List<String> lines(String text) {
        return text == null || text.isEmpty() ? List.of() : Arrays.asList(text.split("\n"));
    }

    private static WorkerRow row(ResultSet r) throws SQLException {
        return new WorkerRow(r.getString("id"), r.getString("address"), lines(r.getString("models")),
                lines(r.getString("loading")), r.getLong("budget_bytes"),
                r.getLong("free_bytes"), r.getInt("running"), r.getInt("waiting"), r.getInt("kv_permille") / 1000.0,
                r.getInt("draining") != 0, r.getLong("beats"), r.getLong("started_at"), r.getLong("renewed_at"));
    }
}
