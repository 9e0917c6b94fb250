package dev.inferd.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A client that goes away mid-stream must stop the generation behind it. */
class DisconnectTest {

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void closingTheConnectionMidStreamCancelsTheGeneration() throws Exception {
        server.oddModel.text("word ".repeat(2000)).delayMillis(10);
        String body = "{\"model\":\"org/tiny-model:Q8_0\",\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Go on forever\"}]}";

        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            assertThat(in.readLine()).startsWith("HTTP/1.1 200");
            String line;
            int contentChunks = 0;
            while ((line = in.readLine()) != null && contentChunks < 2) {
                if (line.contains("\"content\":\" word\"") || line.contains("\"content\":\"word\"")) contentChunks++;
            }
            assertThat(contentChunks).isEqualTo(2);
        }

        assertThat(server.oddModel.cancelSeen.await(10, TimeUnit.SECONDS)).as("engine saw isCancelled()").isTrue();
    }

    @Test
    void firstTokenArrivesWithoutWaitingForTheWholeGeneration() throws Exception {
        server.oddModel.text("word ".repeat(100)).delayMillis(20);
        String body = "{\"model\":\"org/tiny-model:Q8_0\",\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}]}";
        long start = System.nanoTime();
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.contains("\"content\":\"word\"")) {
                // headers and the role chunk
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // The whole generation takes 2 s; the first token must come long before that.
            assertThat(millis).isLessThan(1500);
        }
        assertThat(server.oddModel.cancelSeen.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
