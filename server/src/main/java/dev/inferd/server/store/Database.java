package dev.inferd.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The hosted deployment's database: an SQLite file by default, PostgreSQL to scale out, migrated to the
 * current schema by Flyway when opened. Plain JDBC over a small connection pool; every statement outside
 * {@link #inTransaction} commits on its own, so a row written is on disk when the call returns.
 *
 * <pre>{@code
 * try (Database db = Database.open(Database.sqliteUrl(home))) {
 *     db.update("INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)", id, name, now);
 * }
 * }</pre>
 */
public final class Database implements AutoCloseable {

    /** A typed SQL NULL, for drivers (PostgreSQL's) that want to know the type of a null parameter. */
    public record Null(int sqlType) {
        public static final Null BIGINT = new Null(Types.BIGINT);
        public static final Null INTEGER = new Null(Types.INTEGER);
        public static final Null VARCHAR = new Null(Types.VARCHAR);
    }

    /** Reads one row. */
    @FunctionalInterface
    public interface Rows<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Work done on one connection in one transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Transaction tx) throws SQLException;
    }

    /** Flyway reports every step of every start at INFO; a strong reference keeps the level set. */
    private static final java.util.logging.Logger FLYWAY_LOG = java.util.logging.Logger.getLogger("org.flywaydb");

    static {
        FLYWAY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final HikariDataSource pool;
    private final String url;
    private final StoreChanges changes;
    private HikariDataSource unsynced;

    private Database(HikariDataSource pool, String url) {
        this.pool = pool;
        this.url = url;
        this.changes = isPostgres() ? new PostgresChanges(this) : StoreChanges.LOCAL;
    }

    /** The default database: {@code inferd.db} in {@code home} (created with its folder when missing). */
    public static String sqliteUrl(Path home) {
        return "jdbc:sqlite:" + home.resolve("inferd.db").toAbsolutePath();
    }

    /**
     * Connects and migrates the schema.
     *
     * @param url {@code jdbc:sqlite:FILE} or {@code jdbc:postgresql://HOST/DB?user=...&password=...}
     * @throws StoreException when the database cannot be reached or migrated
     */
    public static Database open(String url) {
        boolean sqlite = url.startsWith("jdbc:sqlite:");
        if (!sqlite && !url.startsWith("jdbc:postgresql:")) {
            throw new StoreException("unsupported database URL (use jdbc:sqlite:FILE or jdbc:postgresql://...): "
                    + redact(url), null);
        }
        if (sqlite) createParentFolder(url);
        var config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("inferd-store");
        config.setMaximumPoolSize(sqlite ? 4 : 8);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        if (sqlite) {
            // WAL lets readers go on beside the one writer; FULL makes every commit durable; a writer that finds the
            // file locked waits instead of failing; IMMEDIATE takes the write lock when a transaction begins, which
            // avoids the deadlock of two transactions that both read and then want to write.
            config.addDataSourceProperty("journal_mode", "WAL");
            config.addDataSourceProperty("synchronous", "FULL");
            config.addDataSourceProperty("busy_timeout", "10000");
            config.addDataSourceProperty("foreign_keys", "true");
            config.addDataSourceProperty("transaction_mode", "IMMEDIATE");
        }
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("cannot connect to " + redact(url) + ": " + rootMessage(e), e);
        }
        try {
            Flyway.configure()
                    .dataSource(pool)
                    .locations("classpath:dev/inferd/server/store/migration")
                    .load()
                    .migrate();
        } catch (RuntimeException e) {
            pool.close();
            throw new StoreException("cannot migrate " + redact(url) + ": " + rootMessage(e), e);
        }
        return new Database(pool, url);
    }

    /** Whether this is PostgreSQL, which several processes share (SQLite is one process's file). */
    public boolean isPostgres() {
        return url.startsWith("jdbc:postgresql:");
    }

    /** The pool, for libraries that keep their own tables here (Bucket4j's buckets). */
    public javax.sql.DataSource dataSource() {
        return pool;
    }

    /**
     * A pool whose commits do not wait for the disk (PostgreSQL's {@code synchronous_commit = off}; still atomic,
     * a crash loses at most the last fraction of a second), for state whose loss is harmless and which is written
     * on every request: the rate limit buckets. Waiting for a WAL flush there would put a sync to disk in every
     * request's latency. On SQLite, the one pool.
     */
    public synchronized javax.sql.DataSource unsyncedDataSource() {
        if (!isPostgres()) return pool;
        if (unsynced == null) {
            var config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setPoolName("inferd-unsynced");
            config.setMaximumPoolSize(8);
            config.setMinimumIdle(1);
            config.setConnectionTimeout(10_000);
            config.setConnectionInitSql("SET synchronous_commit TO off");
            try {
                unsynced = new HikariDataSource(config);
            } catch (RuntimeException e) {
                throw new StoreException("cannot connect to " + redact(url) + ": " + rootMessage(e), e);
            }
        }
        return unsynced;
    }

    /** A connection of its own outside the pool, for a listener that holds it for the process's life. */
    Connection openDedicated() throws SQLException {
        return java.sql.DriverManager.getConnection(url);
    }

    /**
     * What other processes change in this database (keys, accounts, the catalog): on PostgreSQL told by
     * {@code LISTEN/NOTIFY} within milliseconds; on SQLite nothing is told, and readers must not cache.
     */
    public StoreChanges changes() {
        return changes;
    }

    /** The URL with any password left out, for messages. */
    public String describe() {
        return redact(url);
    }

    public <T> List<T> query(String sql, Rows<T> rows, Object... params) {
        try (Connection c = pool.getConnection()) {
            return query(c, sql, rows, params);
        } catch (SQLException e) {
            throw new StoreException("the database refused a statement", sql, e);
        }
    }

    public <T> Optional<T> queryOne(String sql, Rows<T> rows, Object... params) {
        List<T> found = query(sql, rows, params);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
    }

    /** Runs one statement in a transaction of its own; the number of rows it changed. */
    public int update(String sql, Object... params) {
        try (Connection c = pool.getConnection()) {
            return update(c, sql, params);
        } catch (SQLException e) {
            throw new StoreException("the database refused a statement", sql, e);
        }
    }

    /** Runs {@code work} in one transaction: all of it is committed, or none of it when it throws. */
    public <T> T inTransaction(Work<T> work) {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(new Transaction(c));
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new StoreException("transaction failed", e);
        }
    }

    /** One transaction's statements. */
    public static final class Transaction {
        private final Connection connection;

        private Transaction(Connection connection) {
            this.connection = connection;
        }

        public <T> List<T> query(String sql, Rows<T> rows, Object... params) throws SQLException {
            return Database.query(connection, sql, rows, params);
        }

        public <T> Optional<T> queryOne(String sql, Rows<T> rows, Object... params) throws SQLException {
            List<T> found = query(sql, rows, params);
            return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
        }

        public int update(String sql, Object... params) throws SQLException {
            return Database.update(connection, sql, params);
        }

        /** Runs {@code sql} once per row of parameters, all sent together. */
        public void batch(String sql, List<Object[]> rows) throws SQLException {
            Database.batch(connection, sql, rows);
        }
    }

    /** A nullable BIGINT column (SQLite hands back Integer or Long, PostgreSQL Long). */
    public static Long longOrNull(ResultSet row, String column) throws SQLException {
        Object value = row.getObject(column);
        return value == null ? null : ((Number) value).longValue();
    }

    public static Integer intOrNull(ResultSet row, String column) throws SQLException {
        Object value = row.getObject(column);
        return value == null ? null : ((Number) value).intValue();
    }

    /** {@code value}, or a typed NULL of BIGINT when it is null. */
    public static Object nullableLong(Long value) {
        return value == null ? Null.BIGINT : value;
    }

    public static Object nullableInt(Integer value) {
        return value == null ? Null.INTEGER : value;
    }

    public static Object nullableText(String value) {
        return value == null ? Null.VARCHAR : value;
    }

    @Override
    public void close() {
        changes.close();
        synchronized (this) {
            if (unsynced != null) unsynced.close();
        }
        pool.close();
    }

    private static <T> List<T> query(Connection c, String sql, Rows<T> rows, Object... params) throws SQLException {
        try (PreparedStatement statement = prepare(c, sql, params); ResultSet rs = statement.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) out.add(rows.map(rs));
            return out;
        }
    }

    private static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement statement = prepare(c, sql, params)) {
            return statement.executeUpdate();
        }
    }

    /** One statement for many rows, sent together (PostgreSQL's driver: one round trip, not one a row). */
    private static void batch(Connection c, String sql, List<Object[]> rows) throws SQLException {
        if (rows.isEmpty()) return;
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            for (Object[] params : rows) {
                bind(statement, sql, params);
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement statement = c.prepareStatement(sql);
        try {
            bind(statement, sql, params);
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    private static void bind(PreparedStatement statement, String sql, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            switch (params[i]) {
                case Null n -> statement.setNull(i + 1, n.sqlType());
                case null -> throw new IllegalArgumentException("untyped null parameter " + (i + 1) + " in " + sql);
                case Long l -> statement.setLong(i + 1, l);
                case Integer n -> statement.setInt(i + 1, n);
                case String s -> statement.setString(i + 1, s);
                case Boolean b -> statement.setBoolean(i + 1, b);
                default -> throw new IllegalArgumentException("parameter type " + params[i].getClass().getName());
            }
        }
    }

    private static void createParentFolder(String url) {
        String file = url.substring("jdbc:sqlite:".length());
        int query = file.indexOf('?');
        if (query >= 0) file = file.substring(0, query);
        if (file.isEmpty() || file.startsWith(":memory:") || file.startsWith("file:")) return;
        Path parent = Path.of(file).toAbsolutePath().getParent();
        try {
            java.nio.file.Files.createDirectories(parent);
        } catch (java.io.IOException e) {
            throw new StoreException("cannot create " + parent + ": " + e.getMessage(), e);
        }
    }

    /** Drops a password given in the URL's query string. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getMessage();
    }
}
