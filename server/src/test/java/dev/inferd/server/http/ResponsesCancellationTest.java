package dev.inferd.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A Responses client that leaves mid-stream stops the generation behind it ({@link DisconnectTest} covers leaving before a whole response). */
class ResponsesCancellationTest {

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private static byte[] post(String body) {
        return ("POST /v1/responses HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void leavingMidStreamCancelsTheGeneration() throws Exception {
        server.oddModel.text("word ".repeat(2000)).delayMillis(10);
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(post("{\"model\":\"org/tiny-model:Q8_0\",\"stream\":true,\"input\":\"Go on\"}"));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            assertThat(in.readLine()).startsWith("HTTP/1.1 200");
            String line;
            int deltas = 0;
            while ((line = in.readLine()) != null && deltas < 2) {
                if (line.equals("event: response.output_text.delta")) deltas++;
            }
            assertThat(deltas).isEqualTo(2);
        }
        assertThat(server.oddModel.cancelSeen.await(10, TimeUnit.SECONDS)).as("engine saw isCancelled()").isTrue();
    }
}
