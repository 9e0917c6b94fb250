package dev.inferd.server.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@code model_loads} table: which worker loads a model that no worker had, so that of the gateways receiving
 * its first requests at once exactly one picks the worker (the table's primary key lets one insert win) and the
 * others send their requests there. Times are the database's own clock, the one clock every gateway shares.
 */
public final class LoadClaims {

    private final Database db;
    /** The database's clock in milliseconds since the epoch, in its own SQL. */
    private final String now;

    public LoadClaims(Database db) {
        this.db = db;
        this.now = db.isPostgres() ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
                : "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
    }

    /** The claim in force on {@code model}, if any. */
    public Optional<LoadClaim> current(String model) {
        return db.queryOne("SELECT model, worker, token, expires_at - " + now + " AS remaining FROM model_loads"
                + " WHERE model = ? AND expires_at > " + now, LoadClaims::claim, model);
    }

    /**
     * Claims the load of {@code model} for {@code worker} for {@code ttl}, unless another claim is in force; the claim in
     * force afterwards, this one or the one that won.
     *
     * @param displacing the token of a claim in force that the caller cannot use (its worker is out): it is taken over;
     *                   null for none. A claim made since by someone else is not.
     */
    public LoadClaim claim(String model, String worker, Duration ttl, String displacing) {
        String token = UUID.randomUUID().toString();
        LoadClaim inForce = db.inTransaction(tx -> {
            tx.update("INSERT INTO model_loads (model, worker, token, expires_at) VALUES (?, ?, ?, " + now + " + ?)"
                            + " ON CONFLICT (model) DO UPDATE SET worker = excluded.worker, token = excluded.token,"
                            + " expires_at = excluded.expires_at"
                            + " WHERE model_loads.expires_at <= " + now + " OR model_loads.token = ?",
                    model, worker, token, ttl.toMillis(), displacing == null ? "" : displacing);
            return tx.queryOne("SELECT model, worker, token, expires_at - " + now + " AS remaining FROM model_loads"
                    + " WHERE model = ?", LoadClaims::claim, model).orElseThrow();
        });
        if (inForce.token().equals(token)) purgeLapsed();
        return inForce;
    }

    /** Deletes the lapsed claims (of models loaded long since, or never served); they would only be taken over. */
    private void purgeLapsed() {
        try {
            db.update("DELETE FROM model_loads WHERE expires_at <= " + now);
        } catch (StoreException e) {
            // another gateway purges at the same moment: the rows go with its statement or the next claim's
        }
    }

    private static LoadClaim claim(ResultSet r) throws SQLException {
        return new LoadClaim(r.getString("model"), r.getString("worker"), r.getString("token"), r.getLong("remaining"));
    }
}
