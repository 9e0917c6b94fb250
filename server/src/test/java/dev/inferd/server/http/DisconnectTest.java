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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    @Test
    void closingTheConnectionWhileWaitingForANonStreamedResponseCancelsTheGeneration() throws Exception {
        assertClosingCancels("{\"model\":\"org/tiny-model:Q8_0\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Go on forever\"}]}", "/v1/chat/completions");
    }

    @Test
    void closingTheConnectionWhileWaitingForALegacyCompletionCancelsTheGeneration() throws Exception {
        assertClosingCancels("{\"model\":\"org/tiny-model:Q8_0\",\"prompt\":\"Go on forever\",\"max_tokens\":2000}", "/v1/completions");
    }

    @Test
    void closingTheConnectionWhileWaitingForAWholeResponsesAnswerCancelsTheGeneration() throws Exception {
        assertClosingCancels("{\"model\":\"org/tiny-model:Q8_0\",\"input\":\"Go on\"}", "/v1/responses");
    }

    /** Sends a request on a raw socket, waits until the engine runs it, closes the socket without reading. */
    private void assertClosingCancels(String body, String path) throws Exception {
        assumeTrue(dev.inferd.server.linux.LinuxTcpTable.SYSTEM.isAvailable(), "needs Linux's /proc/net/tcp");
        // 2000 tokens at 10 ms each: 20 s if nothing stops it.
        server.oddModel.text("word ".repeat(2000)).delayMillis(10);
        long started;
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                    + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.oddModel.generateCalls.get() == 0 && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(server.oddModel.generateCalls.get()).as("the engine started").isEqualTo(1);
            Thread.sleep(100);
            started = System.nanoTime();
        }

        assertThat(server.oddModel.cancelSeen.await(10, TimeUnit.SECONDS)).as("engine saw isCancelled()").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5000);
    }

    @Test
    void aLongNonStreamedRequestWhoseClientStaysIsAnsweredWhole() throws Exception {
        // 60 tokens at 5 ms: the watch polls many times and must not take the quiet socket for a closed one.
        server.oddModel.text("word ".repeat(60)).delayMillis(5);
        var response = server.post("/v1/completions", "{\"model\":\"org/tiny-model:Q8_0\",\"prompt\":\"Go\",\"max_tokens\":100}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(response).get("usage").get("completion_tokens").asInt()).isEqualTo(60);
        assertThat(server.oddModel.cancelSeen.getCount()).isEqualTo(1);
    }
}
