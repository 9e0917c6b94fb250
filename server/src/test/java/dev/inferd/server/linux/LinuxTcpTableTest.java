package dev.inferd.server.linux;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LinuxTcpTableTest {

    private static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

    private static TcpConnection connection(String local, int localPort, String remote, int remotePort)
            throws Exception {
        return TcpConnection.of(InetAddress.getByName(local), localPort, InetAddress.getByName(remote), remotePort);
    }

    @Test
    void findsIpv4ConnectionsInCloseWaitAndClose() throws Exception {
        String table = HEADER
                // 127.0.0.1:8000 <- 127.0.0.1:41394, CLOSE_WAIT
                + "   0: 0100007F:1F40 0100007F:A1B2 08 00000000:00000000 00:00000000 00000000  1000 0 12345 1 0 20 4 30 10 -1\n"
                // 10.1.2.3:8000 <- 192.168.0.7:50000, CLOSE (reset)
                + "   1: 0302010A:1F40 0700A8C0:C350 07 00000000:00000000 00:00000000 00000000  1000 0 12346 1 0 20 4 30 10 -1\n"
                // listening and established sockets are not closed
                + "   2: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 12347 1 0 20 4 30 10 -1\n"
                + "   3: 0100007F:1F40 0100007F:A1B3 01 00000000:00000000 00:00000000 00000000  1000 0 12348 1 0 20 4 30 10 -1\n";

        assertThat(LinuxTcpTable.parse(table)).containsExactlyInAnyOrder(
                connection("127.0.0.1", 8000, "127.0.0.1", 0xA1B2),
                connection("10.1.2.3", 8000, "192.168.0.7", 50000));
    }

    @Test
    void readsIpv6AndIpv4MappedAddresses() throws Exception {
        String table = HEADER
                // ::ffff:127.0.0.1:8000 <- ::ffff:127.0.0.1:37470, as a dual-stack socket shows it
                + "   0: 0000000000000000FFFF00000100007F:1F40 0000000000000000FFFF00000100007F:925E 08 "
                + "00000000:00000000 00:00000000 00000000 0 0 0 3 0\n"
                // ::1:8000 <- ::1:40000
                + "   1: 00000000000000000000000001000000:1F40 00000000000000000000000001000000:9C40 08 "
                + "00000000:00000000 00:00000000 00000000 0 0 0 3 0\n";

        assertThat(LinuxTcpTable.parse(table)).containsExactlyInAnyOrder(
                connection("127.0.0.1", 8000, "127.0.0.1", 0x925E),
                connection("::1", 8000, "::1", 40000));
    }

    @Test
    void skipsLinesItCannotRead() throws Exception {
        String table = HEADER + "garbage\n   0: 0100007F 0100007F:A1B2 08\n   1: XYZ:1F40 0100007F:A1B2 08\n"
                + "   2: 0100007F:1F40 0100007F:A1B2 08 00000000:00000000\n";

        assertThat(LinuxTcpTable.parse(table)).containsExactly(connection("127.0.0.1", 8000, "127.0.0.1", 0xA1B2));
    }

    @Test
    void rereadsTheTableOnlyWhenItIsOlderThanItsMaximumAge(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tcp");
        Files.writeString(file, HEADER);
        var table = new LinuxTcpTable(List.of(file), Duration.ofHours(1));
        TcpConnection client = connection("127.0.0.1", 8000, "127.0.0.1", 0xA1B2);
        assertThat(table.isAvailable()).isTrue();
        assertThat(table.isClosedByPeer(client)).isFalse();

        Files.writeString(file, HEADER + "   0: 0100007F:1F40 0100007F:A1B2 08 0 0 0 0 0\n");
        assertThat(table.isClosedByPeer(client)).as("still the cached table").isFalse();

        var fresh = new LinuxTcpTable(List.of(file), Duration.ZERO);
        assertThat(fresh.isClosedByPeer(client)).isTrue();
    }

    @Test
    void isUnavailableWithoutTables(@TempDir Path dir) {
        assertThat(new LinuxTcpTable(List.of(dir.resolve("absent")), Duration.ZERO).isAvailable()).isFalse();
    }
}
