package dev.inferd.server.store;

import dev.inferd.server.responses.ResponseStore;
import dev.inferd.server.responses.StoredResponse;

import java.util.Optional;

/** Responses in the {@code responses} table, per account: the hosted deployment's {@link ResponseStore}. */
public final class ResponseTable implements ResponseStore {

    private final Database db;

    public ResponseTable(Database db) {
        this.db = db;
    }

    @Override
    public void put(String owner, StoredResponse r) {
        db.inTransaction(tx -> {
            tx.update("DELETE FROM responses WHERE account_id = ? AND id = ?", owner, r.id());
            tx.update("INSERT INTO responses (account_id, id, created_at, response, input_items, context)"
                    + " VALUES (?, ?, ?, ?, ?, ?)", owner, r.id(), r.createdAt(), r.response(), r.inputItems(), r.context());
            return null;
        });
    }

    @Override
    public Optional<StoredResponse> get(String owner, String id) {
        return db.queryOne("SELECT * FROM responses WHERE account_id = ? AND id = ?",
                row -> new StoredResponse(row.getString("id"), row.getLong("created_at"), row.getString("response"),
                        row.getString("input_items"), row.getString("context")), owner, id);
    }

    @Override
    public boolean delete(String owner, String id) {
        return db.update("DELETE FROM responses WHERE account_id = ? AND id = ?", owner, id) > 0;
    }
}
