package dev.inferd.server.store;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL's {@code LISTEN/NOTIFY} as {@link StoreChanges}. Triggers on the tables of keys, secrets, accounts and
 * the catalog send a notification from whichever process (a gateway, a worker, the CLI) commits a change; one
 * thread per process listens on a connection of its own and calls the subscribers. Writing a key's last-used time
 * notifies nobody: it changes nothing a cache holds.
 */
final class PostgresChanges implements StoreChanges {

    private static final System.Logger LOG = System.getLogger(PostgresChanges.class.getName());
    /** An arbitrary number the processes agree on, so that two starting at once do not both create the triggers. */
    static final long SCHEMA_LOCK = 0x696e66657264L;
    private static final int POLL_MILLIS = 250;
    private static final long RETRY_MILLIS = 1000;

    private static final List<String> FUNCTIONS = List.of("""
            CREATE OR REPLACE FUNCTION inferd_notify_keys() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'api_keys'
                 AND (to_jsonb(OLD) - 'last_used_at') = (to_jsonb(NEW) - 'last_used_at') THEN
                RETURN NULL;
              END IF;
              PERFORM pg_notify('inferd_keys', TG_TABLE_NAME);
              RETURN NULL;
            END $$
            """, """
            CREATE OR REPLACE FUNCTION inferd_notify_catalog() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify('inferd_catalog', TG_TABLE_NAME);
              RETURN NULL;
            END $$
            """);
    /** table -> the trigger's events and function. */
    private static final Map<String, String> TRIGGERS = Map.of(
            "api_keys", "UPDATE OR DELETE|inferd_notify_keys",
            "key_secrets", "UPDATE OR DELETE|inferd_notify_keys",
            "accounts", "UPDATE OR DELETE|inferd_notify_keys",
            "deployment_models", "INSERT OR UPDATE OR DELETE|inferd_notify_catalog");

    private final Database db;
    private final Map<Topic, List<Runnable>> listeners = new ConcurrentHashMap<>();
    private final CountDownLatch listening = new CountDownLatch(1);
    private volatile boolean closed;
    private Thread thread;

    PostgresChanges(Database db) {
        this.db = db;
        for (Topic topic : Topic.values()) listeners.put(topic, new CopyOnWriteArrayList<>());
        installTriggers();
    }

    private void installTriggers() {
        try {
            db.inTransaction(tx -> {
                tx.query("SELECT pg_advisory_xact_lock(?)", row -> 1, SCHEMA_LOCK);
                for (String function : FUNCTIONS) tx.update(function);
                for (var entry : TRIGGERS.entrySet()) {
                    String table = entry.getKey();
                    String trigger = "inferd_" + table + "_changed";
                    boolean exists = tx.queryOne("SELECT 1 FROM pg_trigger WHERE tgname = ? AND tgrelid = ?::regclass",
                            row -> 1, trigger, table).isPresent();
                    if (exists) continue;
                    String[] eventsAndFunction = entry.getValue().split("\\|");
                    tx.update("CREATE TRIGGER " + trigger + " AFTER " + eventsAndFunction[0] + " ON " + table
                            + " FOR EACH ROW EXECUTE FUNCTION " + eventsAndFunction[1] + "()");
                }
                return null;
            });
        } catch (StoreException e) {
            // Without triggers no process is told: readers then keep to their short cache lifetimes.
            LOG.log(Level.WARNING, "cannot install the change notification triggers: " + e.getMessage());
        }
    }

    @Override
    public boolean tellsOtherProcesses() {
        return true;
    }

    @Override
    public Subscription subscribe(Topic topic, Runnable listener) {
        listeners.get(topic).add(listener);
        start();
        try {
            // Changes committed after this returns are told: the LISTEN is in place.
            listening.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return () -> listeners.get(topic).remove(listener);
    }

    private synchronized void start() {
        if (thread != null || closed) return;
        thread = Thread.ofPlatform().daemon().name("inferd-store-changes").start(this::listen);
    }

    private void listen() {
        boolean reconnected = false;
        while (!closed) {
            try (Connection connection = db.openDedicated(); Statement statement = connection.createStatement()) {
                for (Topic topic : Topic.values()) statement.execute("LISTEN " + topic.channel);
                listening.countDown();
                // Changes made while the connection was down went unseen: tell every topic once.
                if (reconnected) tell(EnumSet.allOf(Topic.class));
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications == null || notifications.length == 0) continue;
                    Set<Topic> topics = EnumSet.noneOf(Topic.class);
                    for (PGNotification n : notifications) {
                        for (Topic topic : Topic.values()) if (topic.channel.equals(n.getName())) topics.add(topic);
                    }
                    tell(topics);
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) return;
                LOG.log(Level.WARNING, "lost the change notifications of " + db.describe() + " (" + e.getMessage()
                        + "); reconnecting");
                reconnected = true;
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private void tell(Set<Topic> topics) {
        for (Topic topic : topics) {
            for (Runnable listener : listeners.get(topic)) {
                try {
                    listener.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "a listener of " + topic + " changes failed: " + e.getMessage(), e);
                }
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = thread;
        }
        if (running == null) return;
        try {
            running.join(POLL_MILLIS * 4L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
