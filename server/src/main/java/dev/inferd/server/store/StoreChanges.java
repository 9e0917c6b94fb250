package dev.inferd.server.store;

/**
 * Tells a process what any process changed in the shared database, so that what it keeps in memory (looked-up
 * keys, the catalog) follows within a second. A listener may be told more often than needed (after a lost
 * connection, every topic is told once, since changes may have gone unseen), never less.
 */
public interface StoreChanges extends AutoCloseable {

    /** What changed. */
    enum Topic {
        /** An API key, one of its secrets, or an account (its limit, its removal). */
        KEYS("inferd_keys"),
        /** The model catalog. */
        CATALOG("inferd_catalog");

        final String channel;

        Topic(String channel) {
            this.channel = channel;
        }
    }

    /** A subscription; closing it stops the calls. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** An SQLite file's: nothing is told, which is right for the one process that writes it through its caches. */
    StoreChanges LOCAL = new StoreChanges() {
        @Override
        public boolean tellsOtherProcesses() {
            return false;
        }

        @Override
        public Subscription subscribe(Topic topic, Runnable listener) {
            return () -> { };
        }

        @Override
        public void close() {
        }
    };

    /** Whether changes made by other processes are told (a reader may then cache what it reads). */
    boolean tellsOtherProcesses();

    /** Calls {@code listener} on a background thread after each change of {@code topic}, by this process or another. */
    Subscription subscribe(Topic topic, Runnable listener);

    @Override
    void close();
}
