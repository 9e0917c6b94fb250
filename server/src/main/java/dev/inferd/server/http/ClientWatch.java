package dev.inferd.server.http;

import dev.inferd.server.http.PeerClosedConnections.PeerState;
import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.http.ServerRequest;

import java.net.InetSocketAddress;

/**
 * Tells whether the client of a request has gone while the server has nothing to write to it yet
 * (a non-streamed generation, or a stream waiting for its first token). A write would show a
 * departed client at once; without one, neither Helidon nor the socket API can tell without
 * reading from the connection, which would take bytes that belong to Helidon. So the watch asks
 * the operating system instead (see {@link PeerClosedConnections}).
 *
 * <p>A reset (or a connection the kernel dropped) is a departure. A FIN is not enough: a client may
 * half-close its side after a complete request and still read the answer. So on a FIN the watch
 * calls its {@link Probe}, which writes a little of the response: a client that closed for good
 * answers that with a reset, which the next look sees; a half-closed one reads on. A request
 * without a probe takes the FIN for a departure.
 *
 * <p>Where the tables cannot be read (not Linux), requests are not watched and a non-streamed
 * generation runs to its end.
 */
final class ClientWatch {

    /** Writes something harmless to the client; throws {@link ClientGoneException} when that fails. */
    interface Probe {
        void probe();
    }

    /** For requests whose connection cannot be watched: the client always seems to be there. */
    static final ClientWatch UNWATCHED = new ClientWatch(null, null);

    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    private final PeerClosedConnections table;
    private final TcpConnection connection;
    private volatile Probe probe;
    private boolean listed;
    private long probedAt;
    private boolean probed;

    private ClientWatch(PeerClosedConnections table, TcpConnection connection) {
        this.table = table;
        this.connection = connection;
    }

    /** A watch on the client of {@code request}, through the system's connection table. */
    static ClientWatch of(ServerRequest request) {
        return of(request, PeerClosedConnections.SYSTEM);
    }

    static ClientWatch of(ServerRequest request, PeerClosedConnections table) {
        if (!table.isAvailable()) return UNWATCHED;
        TcpConnection connection = connectionOf(request.localPeer(), request.remotePeer());
        return connection == null ? UNWATCHED : new ClientWatch(table, connection);
    }

    private static TcpConnection connectionOf(PeerInfo local, PeerInfo remote) {
        if (local.address() instanceof InetSocketAddress l && remote.address() instanceof InetSocketAddress r
                && l.getAddress() != null && r.getAddress() != null) {
            return TcpConnection.of(l.getAddress(), l.getPort(), r.getAddress(), r.getPort());
        }
        return null;
    }

    /** What to write to tell a half-closed client from a departed one. */
    void probeWith(Probe probe) {
        this.probe = probe;
    }

    /**
     * True once the client is gone. Called by the one thread that serves the request; may call the
     * probe (and so throw {@link ClientGoneException} itself).
     */
    boolean isGone() {
        if (connection == null) return false;
        PeerState state = table.state(connection);
        switch (state) {
            case OPEN -> {
                listed = true;
                return false;
            }
            case RESET -> {
                return true;
            }
            case ABSENT -> {
                return listed;
            }
            case FIN_RECEIVED -> {
                listed = true;
                Probe p = probe;
                if (p == null) return true;
                long now = System.nanoTime();
                if (!probed || now - probedAt >= PROBE_INTERVAL_NANOS) {
                    probed = true;
                    probedAt = now;
                    p.probe();
                }
                return false;
            }
            default -> {
                return false;
            }
        }
    }
}
