package dev.inferd.server.http;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A second server on a port that is taken fails to start with an exception, so that {@code serve} says so and
 * exits, rather than announcing that it serves on a port it does not hold.
 */
class PortInUseTest {
    @Test
    void aPortInUseIsAnErrorNotAServerOnPortMinusOne() {
        try (var first = new TestServer()) {
            int taken = first.server.port();
            assertThatThrownBy(() -> InferdServer.start("127.0.0.1", taken,
                    Map.of(TestServer.MODEL, new FakeTextGenerator(TestServer.MODEL, TestServer.CONTEXT))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port is in use");
        }
    }

    /** A failed bind leaves no SEVERE trace in the log; {@code serve}'s one line is all a user should see. */
    @Test
    void aPortInUseLogsNothingSevere() {
        var severe = new ArrayList<LogRecord>();
        var handler = new Handler() {
            @Override public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.SEVERE.intValue()) severe.add(record);
            }
            @Override public void flush() {}
            @Override public void close() {}
        };
        Logger root = Logger.getLogger("");
        root.addHandler(handler);
        try (var first = new TestServer()) {
            int taken = first.server.port();
            assertThatThrownBy(() -> InferdServer.start("127.0.0.1", taken,
                    Map.of(TestServer.MODEL, new FakeTextGenerator(TestServer.MODEL, TestServer.CONTEXT))))
                    .isInstanceOf(IllegalStateException.class);
        } finally {
            root.removeHandler(handler);
        }
        assertThat(severe).extracting(LogRecord::getMessage).isEmpty();
    }

    /**
     * A server that closed its clients' connections first leaves its ends of them (its port, the client's port)
     * in TIME_WAIT for a minute; a new server must still bind that port, or {@code serve} could not be restarted
     * right after it served anyone. Linux allows that when both the old sockets and the new one carry
     * SO_REUSEADDR (with it off in {@code InferdServer} this fails). A port whose old sockets lack it (a
     * llama-server's, it seems) stays unavailable to {@code serve} for that minute.
     */
    @Test
    void aServerBindsAPortWhoseLastConnectionsWaitInTimeWait() throws Exception {
        int port;
        try (var previous = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             var client = new Socket(InetAddress.getLoopbackAddress(), previous.getLocalPort())) {
            port = previous.getLocalPort();
            try (var accepted = previous.accept()) {
                accepted.shutdownOutput(); // the server's side sends its FIN first
                assertThat(client.getInputStream().read()).isEqualTo(-1);
            }
        }
        try (var next = InferdServer.start("127.0.0.1", port,
                Map.of(TestServer.MODEL, new FakeTextGenerator(TestServer.MODEL, TestServer.CONTEXT)))) {
            assertThat(next.port()).isEqualTo(port);
        }
    }
}
