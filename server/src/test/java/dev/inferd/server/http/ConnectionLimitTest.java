package dev.inferd.server.http;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --max-connections}: beyond the limit a connection waits unserved until another one closes. */
class ConnectionLimitTest {

    private static final byte[] GET = "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aConnectionBeyondTheLimitIsServedOnceAnotherCloses() throws Exception {
        try (var server = new TestServer(ServerOptions.defaults().withLimits(
                ServerOptions.Limits.defaults().withMaxConnections(4)))) {
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    Socket socket = new Socket("127.0.0.1", server.server.port());
                    socket.setSoTimeout(5_000);
                    socket.getOutputStream().write(GET);
                    assertThat(RawHttp.read(socket.getInputStream(), true).status()).isEqualTo(200);
                    open.add(socket);
                }
                try (Socket fifth = new Socket("127.0.0.1", server.server.port())) {
                    fifth.getOutputStream().write(GET);
                    fifth.setSoTimeout(1_000);
                    assertThat(answered(fifth)).as("served beyond the limit").isFalse();

                    open.removeFirst().close();
                    fifth.setSoTimeout(5_000);
                    assertThat(RawHttp.read(fifth.getInputStream(), true).status()).isEqualTo(200);
                }
            } finally {
                for (Socket socket : open) socket.close();
            }
        }
    }

    private static boolean answered(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() != -1;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }
}
