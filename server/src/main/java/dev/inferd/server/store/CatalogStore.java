package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The deployment_models table: the models the deployment lists, in the order they were added. */
public final class CatalogStore {
    private final Database db;

    public CatalogStore(Database db) {
        this.db = db;
    }

    /** The listed models, in listing order. */
    public List<CatalogModel> list() {
        return db.query("SELECT * FROM deployment_models WHERE removed_at IS NULL ORDER BY position, id", CatalogStore::row);
    }

    /** Whether the table has never held a model, not even one removed since. */
    public boolean neverFilled() {
        return db.queryOne("SELECT COUNT(*) AS n FROM deployment_models", r -> r.getLong("n")).orElse(0L) == 0;
    }

    /** Puts {@code models} in at the end of the list, in one transaction. */
    public void addAll(List<CatalogModel> models) {
        db.inTransaction(tx -> {
            long next = tx.queryOne("SELECT COALESCE(MAX(position), 0) AS p FROM deployment_models", r -> r.getLong("p")).orElse(0L);
            for (CatalogModel m : models) {
                next++;
                int updated = tx.update("UPDATE deployment_models SET owned_by = ?, kind = ?, source = ?, created_at = ?,"
                        + " position = ?, removed_at = NULL WHERE id = ?", m.ownedBy(), m.kind(), m.source(), m.created(), next, m.id());
                if (updated == 0) {
                    tx.update("INSERT INTO deployment_models (id, owned_by, kind, source, created_at, position)"
                            + " VALUES (?, ?, ?, ?, ?, ?)", m.id(), m.ownedBy(), m.kind(), m.source(), m.created(), next);
                }
            }
            return null;
        });
    }

    /** Takes {@code id} off the list; false when it was not listed. */
    public boolean remove(String id, long nowMillis) {
        return db.update("UPDATE deployment_models SET removed_at = ? WHERE id = ? AND removed_at IS NULL", nowMillis, id) > 0;
    }

    private static CatalogModel row(ResultSet r) throws SQLException {
        return new CatalogModel(r.getString("id"), r.getString("owned_by"), r.getString("kind"), r.getString("source"),
                r.getLong("created_at"));
    }
}
