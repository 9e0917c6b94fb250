package dev.inferd.app.loadtest;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The load-test client against a raw socket server that behaves as peers do. */
class StreamingClientTest {

    private static final String STREAM = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\n\n"
            + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\n"
            + "data: [DONE]\n\n";

    /** What the raw server does with connection {@code n} (from 1) once it has read its request. */
    @FunctionalInterface
    private interface Answer {
        void on(int n, Socket socket) throws IOException, InterruptedException;
    }

    /**
     * llama-server closes a kept-alive connection after 5 s idle; a request that the client's pool then
     * sends on it meets the end of the stream before any byte ("header parser received no bytes"), and
     * was counted as an error between two concurrency levels.
     */
    @Test
    void sendsAgainOnANewConnectionWhenTheServerClosedOneWithoutAnswering() throws Exception {
        var connections = new AtomicInteger();
        RequestSample sample = sendTo(connections, Duration.ofSeconds(10), (n, socket) -> {
            if (n == 1) return; // closed without a byte
            socket.getOutputStream().write(STREAM.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
        });

        assertThat(sample.ok()).as(String.valueOf(sample.error())).isTrue();
        assertThat(sample.tokens()).isEqualTo(2);
        assertThat(connections.get()).isEqualTo(2);
    }

    /** A server that took the request and stays silent is not asked twice: that would only wait twice as long. */
    @Test
    void doesNotSendAgainWhenTheAnswerTimedOut() throws Exception {
        var connections = new AtomicInteger();
        RequestSample sample = sendTo(connections, Duration.ofMillis(300), (n, socket) -> Thread.sleep(5_000));

        assertThat(sample.ok()).isFalse();
        assertThat(sample.error()).contains("HttpTimeoutException");
        assertThat(connections.get()).isEqualTo(1);
    }

    /** One chat request through a {@link StreamingClient} to a raw server that answers with {@code answer}. */
    private static RequestSample sendTo(AtomicInteger connections, Duration timeout, Answer answer) throws IOException {
        try (var server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket accepted = server.accept();
                        int n = connections.incrementAndGet();
                        Thread.ofVirtual().start(() -> { // a connection of its own each, as a server serves them
                            try (Socket socket = accepted) {
                                readRequest(socket.getInputStream());
                                answer.on(n, socket);
                            } catch (IOException | InterruptedException e) {
                                // the client went away
                            }
                        });
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                var client = new StreamingClient(http, new StreamingClient.Settings(
                        "http://127.0.0.1:" + server.getLocalPort() + "/v1", "m", StreamingClient.Endpoint.chat, 2, false, timeout));
                return client.send("Hello");
            }
        }
    }

    /** Reads one request's head and its Content-Length body. */
    private static void readRequest(InputStream in) throws IOException {
        var head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("request ended early");
            head.write(b);
        }
        int length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        }
        in.readNBytes(length);
    }
}
