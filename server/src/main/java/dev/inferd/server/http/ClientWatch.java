package dev.inferd.server.http;

import dev.inferd.engine.generate.Generation;
import dev.inferd.server.linux.LinuxTcpTable;
import dev.inferd.server.linux.LinuxTcpTable.PeerState;
import dev.inferd.server.linux.TcpConnection;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Stops a request's work (its generation, or on a gateway its request to a worker) when its client goes away
 * while the server has nothing to write to it (a non-streamed answer, or a stream waiting for its first token).
 * A write would show a departed client at once; without one, neither the HTTP stack nor the socket API can
 * tell without reading from the connection, which would take bytes that belong to the HTTP stack. So the operating system is asked instead
 * ({@link LinuxTcpTable}): a connection the client has closed waits in the kernel's table in state
 * CLOSE_WAIT until the server closes its side.
 *
 * <p>One thread of the whole server looks at every watched connection, once per
 * {@link #CHECK_MILLIS} and only while some request is watched, and stops the work of a client
 * that left; the request's own thread just reads its generation's events, which then end.
 *
 * <p>A reset (or a connection the kernel dropped) is a departure. A FIN is not enough: a client may
 * half-close its side after a complete request and still read the answer. So on a FIN the watch
 * calls its {@link Probe}, which writes a little of the response: a client that closed for good
 * answers that with a reset, which a later look sees; a half-closed one reads on. A request without
 * a probe takes the FIN for a departure (a gateway's forwarded request: the worker's status is not known
 * before its answer, so nothing can be sent early).
 *
 * <p>Where that table cannot be read (not Linux), requests are not watched and a non-streamed
 * generation runs to its end.
 */
final class ClientWatch implements ClientDeparture, AutoCloseable {

    /** How often the watched connections are looked at. */
    static final long CHECK_MILLIS = 100;

    /**
     * Writes something harmless to the client, on a thread of its own (the watcher's must not block);
     * throws {@link ClientGoneException} when that fails.
     */
    interface Probe {
        void probe();
    }

    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    /** For requests whose connection cannot be watched: the client always seems to be there. */
    static final ClientWatch UNWATCHED = new ClientWatch(null, null);

    private static final Watcher WATCHER = new Watcher();

    private final LinuxTcpTable table;
    private final TcpConnection connection;
    private volatile Runnable stop;
    private volatile boolean gone;
    private volatile Probe probe;
    private final AtomicBoolean probing = new AtomicBoolean();
    /** The watcher's own: whether the tables ever listed the connection, and when it last probed. */
    private boolean listed;
    private long probedAt = System.nanoTime() - PROBE_INTERVAL_NANOS;

    private ClientWatch(LinuxTcpTable table, TcpConnection connection) {
        this.table = table;
        this.connection = connection;
    }

    /** A watch on the client of {@code request}, through the system's connection table. */
    static ClientWatch of(ServerRequest request) {
        return of(request, LinuxTcpTable.SYSTEM);
    }

    static ClientWatch of(ServerRequest request, LinuxTcpTable table) {
        if (!table.isAvailable()) return UNWATCHED;
        TcpConnection connection = connectionOf(request.localAddress(), request.remoteAddress());
        return connection == null ? UNWATCHED : new ClientWatch(table, connection);
    }

    private static TcpConnection connectionOf(SocketAddress local, SocketAddress remote) {
        if (local instanceof InetSocketAddress l && remote instanceof InetSocketAddress r
                && l.getAddress() != null && r.getAddress() != null) {
            return TcpConnection.of(l.getAddress(), l.getPort(), r.getAddress(), r.getPort());
        }
        return null;
    }

    /** From now until {@link #close}, the client leaving cancels {@code generation} (replacing an earlier one). */
    void cancelOnDeparture(Generation generation) {
        onDeparture(generation::cancel);
    }

    @Override
    public void onDeparture(Runnable stop) {
        if (connection == null) return;
        this.stop = stop;
        if (gone) stop.run();
        WATCHER.add(this);
    }

    /** What to write to tell a half-closed client from a departed one. */
    void probeWith(Probe probe) {
        this.probe = probe;
    }

    @Override
    public boolean isGone() {
        return gone;
    }

    @Override
    public void close() {
        if (connection != null) WATCHER.remove(this);
    }

    /** Called by the watcher's thread. */
    private void check() {
        if (!gone) {
            switch (table.state(connection)) {
                case OPEN -> listed = true;
                case RESET -> gone = true;
                case ABSENT -> gone = listed;
                case FIN_RECEIVED -> {
                    listed = true;
                    Probe p = probe;
                    if (p == null) {
                        gone = true;
                    } else {
                        probe(p);
                    }
                }
                case UNKNOWN -> {
                    // the tables could not be read this time
                }
            }
        }
        cancelIfGone();
    }

    private void cancelIfGone() {
        Runnable s = stop;
        if (gone && s != null) s.run();
    }

    private void probe(Probe p) {
        long now = System.nanoTime();
        if (now - probedAt < PROBE_INTERVAL_NANOS || !probing.compareAndSet(false, true)) return;
        probedAt = now;
        Thread.ofVirtual().name("inferd-client-probe").start(() -> {
            try {
                p.probe();
            } catch (ClientGoneException e) {
                gone = true;
                cancelIfGone();
            } finally {
                probing.set(false);
            }
        });
    }

    /** The one thread that looks at the watched connections; it sleeps while there are none. */
    private static final class Watcher {
        private final Set<ClientWatch> watched = ConcurrentHashMap.newKeySet();
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition someWatched = lock.newCondition();
        private Thread thread;

        void add(ClientWatch watch) {
            watched.add(watch);
            lock.lock();
            try {
                if (thread == null) thread = Thread.ofVirtual().name("inferd-client-watch").start(this::run);
                someWatched.signal();
            } finally {
                lock.unlock();
            }
        }

        void remove(ClientWatch watch) {
            watched.remove(watch);
        }

        private void run() {
            try {
                while (true) {
                    lock.lock();
                    try {
                        while (watched.isEmpty()) someWatched.await();
                    } finally {
                        lock.unlock();
                    }
                    Thread.sleep(CHECK_MILLIS);
                    for (ClientWatch watch : watched) watch.check();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
