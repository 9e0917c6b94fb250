package dev.inferd.server.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fresh databases for tests: an SQLite file in a temporary folder, or a new database in one real PostgreSQL
 * server (zonky's embedded binaries) started once per test JVM and stopped when it exits.
 */
public final class TestDatabases {

    public static final String SQLITE = "sqlite";
    public static final String POSTGRESQL = "postgresql";

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static EmbeddedPostgres postgres;

    private TestDatabases() {
    }

    /** A JDBC URL of an empty database of this kind. */
    public static String url(String kind) {
        return switch (kind) {
            case SQLITE -> sqliteUrl();
            case POSTGRESQL -> postgresUrl();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    public static Database open(String kind) {
        return Database.open(url(kind));
    }

    private static String sqliteUrl() {
        try {
            Path dir = Files.createTempDirectory("inferd-store");
            dir.toFile().deleteOnExit();
            return Database.sqliteUrl(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized String postgresUrl() {
        try {
            if (postgres == null) {
                postgres = EmbeddedPostgres.builder().start();
                EmbeddedPostgres started = postgres;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        started.close();
                    } catch (IOException ignored) {
                        // the JVM is exiting
                    }
                }));
            }
            String name = "inferd_test_" + NEXT.incrementAndGet();
            try (var c = postgres.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
                s.execute("CREATE DATABASE " + name);
            }
            return postgres.getJdbcUrl("postgres", name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
