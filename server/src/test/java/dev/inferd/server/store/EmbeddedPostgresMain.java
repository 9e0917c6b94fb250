package dev.inferd.server.store;

/**
 * Starts zonky's embedded PostgreSQL, prints a JDBC URL of a fresh database in it, and keeps it running until
 * killed: a PostgreSQL for {@code inferd cloud --database} or {@code inferd bench-gateway --database} by hand.
 */
public final class EmbeddedPostgresMain {
    private EmbeddedPostgresMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(TestDatabases.url(TestDatabases.POSTGRESQL));
        System.out.flush();
        Thread.currentThread().join();
    }
}
