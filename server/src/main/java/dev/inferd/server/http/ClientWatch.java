package dev.inferd.server.http;

import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.http.ServerRequest;

import java.net.InetSocketAddress;

/**
 * Tells whether the client of a request has gone while the server has nothing to write to it yet
 * (a non-streamed generation, or a stream waiting for its first token). A write would show a
 * departed client at once; without one, neither Helidon nor the socket API can tell without
 * reading from the connection, which would take bytes that belong to Helidon. So the watch asks
 * the operating system instead (see {@link PeerClosedConnections}): a connection the client has
 * closed waits in the kernel's table in state CLOSE_WAIT until the server closes its side.
 *
 * <p>Where that table cannot be read (not Linux), requests are not watched and a non-streamed
 * generation runs to its end. A client that only half-closes (shuts down its
 * output and still reads) looks gone too; HTTP clients do not do that.
 */
final class ClientWatch {

    /** For requests whose connection cannot be watched: the client always seems to be there. */
    static final ClientWatch UNWATCHED = new ClientWatch(null, null);

    private final PeerClosedConnections table;
    private final TcpConnection connection;

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

    /** True once the client has closed its side of the connection. */
    boolean isGone() {
        return connection != null && table.isClosedByPeer(connection);
    }
}
