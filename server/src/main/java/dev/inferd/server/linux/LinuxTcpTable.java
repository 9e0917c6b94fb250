package dev.inferd.server.linux;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * What Linux's connection tables ({@code /proc/net/tcp} and {@code /proc/net/tcp6}) say of this
 * server's TCP connections: state CLOSE_WAIT means the peer's FIN arrived (it closed, or only
 * half-closed, its side); CLOSE, or a connection missing from the tables while the server still
 * holds it, means a reset. The tables are read at most once per {@link #maxAge}, by whichever
 * waiting request asks first, so many waiting requests cost one read, and none at all while nobody waits.
 */
public final class LinuxTcpTable {

    public static final LinuxTcpTable SYSTEM = new LinuxTcpTable(
            List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6")), Duration.ofMillis(200));

    private static final System.Logger LOG = System.getLogger(LinuxTcpTable.class.getName());
    private static final String CLOSE = "07";
    private static final String CLOSE_WAIT = "08";

    private final List<Path> tables;
    private final long maxAgeNanos;
    private final boolean available;
    /** What the tables say of one connection. */
    public enum PeerState {
        OPEN, FIN_RECEIVED, RESET,
        /** Not in the tables: reset and gone, if the connection was listed before. */
        ABSENT,
        /** The tables could not be read. */
        UNKNOWN
    }

    private Set<TcpConnection> closed = Set.of();
    private Set<TcpConnection> finReceived = Set.of();
    private Set<TcpConnection> listed = Set.of();
    private long readAt;
    private boolean read;

    LinuxTcpTable(List<Path> tables, Duration maxAge) {
        this.tables = tables;
        this.maxAgeNanos = maxAge.toNanos();
        // The tables' addresses are raw words in the machine's byte order; only little-endian is handled.
        this.available = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
                && tables.stream().anyMatch(Files::isReadable);
    }

    public boolean isAvailable() {
        return available;
    }

    public boolean isClosedByPeer(TcpConnection connection) {
        PeerState state = state(connection);
        return state == PeerState.FIN_RECEIVED || state == PeerState.RESET;
    }

    /** The connection's state as of the last read; UNKNOWN when the tables could not be read. */
    public synchronized PeerState state(TcpConnection connection) {
        if (!available) return PeerState.UNKNOWN;
        long now = System.nanoTime();
        if (!read || now - readAt >= maxAgeNanos) {
            Set<TcpConnection> finished = new HashSet<>();
            Set<TcpConnection> halfClosed = new HashSet<>();
            Set<TcpConnection> all = new HashSet<>();
            boolean complete = true;
            for (Path table : tables) {
                try {
                    if (Files.isReadable(table)) {
                        String text = Files.readString(table);
                        finished.addAll(parse(text, CLOSE));
                        halfClosed.addAll(parse(text, CLOSE_WAIT));
                        all.addAll(parse(text, null));
                    }
                } catch (IOException | RuntimeException e) {
                    complete = false;
                    LOG.log(Level.DEBUG, "cannot read " + table, e);
                }
            }
            closed = finished;
            finReceived = halfClosed;
            listed = complete ? all : null;
            readAt = now;
            read = true;
        }
        if (closed.contains(connection)) return PeerState.RESET;
        if (finReceived.contains(connection)) return PeerState.FIN_RECEIVED;
        if (listed == null) return PeerState.UNKNOWN;
        return listed.contains(connection) ? PeerState.OPEN : PeerState.ABSENT;
    }

    /**
     * The peer-closed connections of one table. A line is
     * {@code sl local_address rem_address st ...}, an address {@code HEX_IP:HEX_PORT} where the IP
     * is 1 (IPv4) or 4 (IPv6) 32-bit words, each printed as a native-order integer.
     */
    static Set<TcpConnection> parse(String table) {
        Set<TcpConnection> closed = new HashSet<>(parse(table, CLOSE));
        closed.addAll(parse(table, CLOSE_WAIT));
        return closed;
    }

    /** The connections of one table in {@code wanted} state, or in any state when it is null. */
    static Set<TcpConnection> parse(String table, String wanted) {
        Set<TcpConnection> closed = new HashSet<>();
        for (String line : table.lines().skip(1).toList()) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 4) continue;
            String state = fields[3];
            if (wanted != null && !state.equals(wanted)) continue;
            try {
                int localColon = fields[1].indexOf(':');
                int remoteColon = fields[2].indexOf(':');
                closed.add(new TcpConnection(
                        address(fields[1].substring(0, localColon)),
                        Integer.parseInt(fields[1].substring(localColon + 1), 16),
                        address(fields[2].substring(0, remoteColon)),
                        Integer.parseInt(fields[2].substring(remoteColon + 1), 16)));
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "unexpected line in the TCP table: " + line, e);
            }
        }
        return closed;
    }

    private static byte[] address(String hex) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        if (bytes.length != 4 && bytes.length != 16) throw new IllegalArgumentException("bad address " + hex);
        // Each 32-bit word was printed as a little-endian integer: reverse the bytes of each word.
        for (int word = 0; word < bytes.length; word += 4) {
            byte b0 = bytes[word];
            byte b1 = bytes[word + 1];
            bytes[word] = bytes[word + 3];
            bytes[word + 1] = bytes[word + 2];
            bytes[word + 2] = b1;
            bytes[word + 3] = b0;
        }
        return TcpConnection.normalized(bytes);
    }
}
