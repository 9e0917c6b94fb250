package dev.inferd.server.cloud.deploy;

import dev.inferd.server.store.Database;

/** Whether the database answers, for {@code GET /ready}. */
final class DatabaseProbe {
    private DatabaseProbe() {
    }

    /** Null when a trivial query succeeds, else why not (the URL's password never appears). */
    static String problem(Database db) {
        try {
            db.queryOne("SELECT 1 AS one", r -> r.getInt("one"));
            return null;
        } catch (RuntimeException e) {
            return "the database " + db.describe() + " does not answer";
        }
    }
}
