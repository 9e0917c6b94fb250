package dev.inferd.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that send slowly on purpose (slowloris): a request's headers must all arrive within the read
 * timeout, and its body at the minimum rate; connections that break either are closed while other
 * clients are served.
 */
class SlowClientTest {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
    private static final int TRICKLERS = 20;
    private static final String CHAT = "{\"model\":\"" + TestServer.MODEL + "\",\"max_tokens\":2,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private final TestServer server = new TestServer(ServerOptions.defaults().withLimits(ServerOptions.Limits.defaults()
            .withReadTimeout(READ_TIMEOUT).withMinBodyBytesPerSecond(1000)));

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void headersTrickledAByteASecondAreClosedWithinTheReadTimeoutWhileOthersAreServed() throws Exception {
        String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "X-Padding: " + "p".repeat(200) + "\r\n\r\n";
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> closedAfter = new ArrayList<>();
            for (int i = 0; i < TRICKLERS; i++) {
                boolean keptAlive = i == 0; // one trickles the headers of a connection's second request
                closedAfter.add(pool.submit(() -> trickleUntilClosed(request, keptAlive)));
            }
            Thread.sleep(300);
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            int served = 0;
            while (System.nanoTime() < deadline) {
                HttpResponse<String> models = server.get("/v1/models");
                assertThat(models.statusCode()).isEqualTo(200);
                served++;
            }
            assertThat(served).isPositive();
            for (Future<Long> f : closedAfter) {
                assertThat(f.get(10, TimeUnit.SECONDS)).as("milliseconds until the server closed")
                        .isLessThan(READ_TIMEOUT.toMillis() + 1500);
            }
        }
        assertThat(server.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
    }

    @Test
    void aBodySlowerThanTheMinimumRateIsRefusedAndItsConnectionClosed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000\r\n\r\n{\"model\":").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            long started = System.nanoTime();
            // 100 bytes a second, each well within the read timeout: only the rate is broken
            var sender = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        Thread.sleep(200);
                        out.write(" ".repeat(20).getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // the server closed, as it should
                }
            });
            RawHttp.Response response = RawHttp.read(socket.getInputStream(), true);
            long millis = (System.nanoTime() - started) / 1_000_000;
            sender.interrupt();
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body()).contains("slower than the server's minimum of 1000");
            assertThat(response.headers()).containsEntry("connection", "close");
            assertThat(millis).isBetween(RequestBody.RATE_GRACE.toMillis(), RequestBody.RATE_GRACE.toMillis() + 3000);
            assertThat(closed(socket, socket.getInputStream())).as("closed").isTrue();
        }
    }

    @Test
    void aBodyAtTheMinimumRateOrFasterIsServed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            byte[] body = (CHAT.substring(0, CHAT.length() - 1) + ",\"user\":\"" + "u".repeat(12000) + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            // about 2,000 bytes a second for 6 s, past the grace period
            for (int at = 0; at < body.length; at += 400) {
                out.write(body, at, Math.min(400, body.length - at));
                out.flush();
                Thread.sleep(200);
            }
            RawHttp.Response response = RawHttp.read(socket.getInputStream(), true);
            assertThat(response.status()).as(response.body()).isEqualTo(200);
        }
    }

    /** Sends the request a byte a second; returns the milliseconds from its start until the server closed. */
    private long trickleUntilClosed(String request, boolean afterAFirstRequest) throws IOException, InterruptedException {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (afterAFirstRequest) {
                out.write(RawHttp.request("GET", "/v1/models", "HTTP/1.1", "", "").getBytes(StandardCharsets.ISO_8859_1));
                assertThat(RawHttp.read(in, true).status()).isEqualTo(200);
            }
            long started = System.nanoTime();
            byte[] bytes = request.getBytes(StandardCharsets.ISO_8859_1);
            try {
                long giveUp = started + READ_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(3); // the server failed
                for (byte b : bytes) {
                    out.write(b);
                    out.flush();
                    if (closed(socket, in) || System.nanoTime() > giveUp) break;
                }
            } catch (SocketException e) {
                // the server closed while we wrote
            }
            return (System.nanoTime() - started) / 1_000_000;
        }
    }

    /** Waits a second for the server to close the connection; true when it did. */
    private static boolean closed(Socket socket, InputStream in) throws IOException {
        socket.setSoTimeout(1000);
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }
}
