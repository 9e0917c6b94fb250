package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The response's barrier ({@link ServerResponse#beforeCompletion}) holds back every answer's end: while it runs, a
 * whole body has not left (not one byte of it), and a stream has sent its text but neither its usage chunk nor
 * {@code [DONE]}. A barrier that throws withholds the answer: an error instead of the body, an error event instead
 * of the stream's end. What the hosted gateway commits there (the usage record) is thus durable before any client
 * holds a whole answer, on every route that sends through {@link ServerResponse}.
 */
class CompletionBarrierTest {

    private static final String MODEL = "fake-model";
    private static final long QUIET_MILLIS = 300;

    /** What the front layer does in the barrier, per test. */
    private static final AtomicReference<Runnable> BARRIER = new AtomicReference<>(() -> { });
    private static InferdServer server;

    @BeforeAll
    static void start() {
        var registry = new ModelRegistry();
        registry.ready(MODEL, new FakeTextGenerator(MODEL, 4096));
        HttpFilter front = (request, response, next) -> {
            response.beforeCompletion(() -> BARRIER.get().run());
            next.run();
        };
        server = InferdServer.start("127.0.0.1", 0, registry, new SpeechModels(), ServerOptions.defaults(), front);
    }

    @AfterAll
    static void stop() {
        BARRIER.set(() -> { });
        server.stop();
    }

    /** A barrier that says when it is reached and waits for the test's word. */
    private static final class Gate implements Runnable {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        public void run() {
            reached.countDown();
            try {
                open.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void aWholeBodyLeavesOnlyAfterTheBarrier() throws Exception {
        var gate = new Gate();
        BARRIER.set(gate);
        String body = "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        try (var socket = send("/v1/chat/completions", body)) {
            assertThat(gate.reached.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(readWhileQuiet(socket)).as("bytes sent before the barrier let go").isEmpty();
            gate.open.countDown();
            String response = readAll(socket);
            assertThat(response).startsWith("HTTP/1.1 200").contains("\"object\":\"chat.completion\"");
        }
    }

    @Test
    void aStreamSendsItsTextButNotItsEndBeforeTheBarrier() throws Exception {
        var gate = new Gate();
        BARRIER.set(gate);
        String body = "{\"model\":\"" + MODEL + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        try (var socket = send("/v1/chat/completions", body)) {
            assertThat(gate.reached.await(10, TimeUnit.SECONDS)).isTrue();
            String before = readWhileQuiet(socket);
            assertThat(before).startsWith("HTTP/1.1 200").contains("\"finish_reason\":\"stop\"")
                    .doesNotContain("[DONE]").doesNotContain("\"usage\":{");
            gate.open.countDown();
            String after = readAll(socket);
            assertThat(after).contains("\"usage\":{").contains("data: [DONE]");
        }
    }

    @Test
    void aListAndACompletionWaitForTheBarrierToo() throws Exception {
        for (String[] exchange : new String[][]{{"GET", "/v1/models", ""},
                {"POST", "/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":\"Once\"}"}}) {
            var gate = new Gate();
            BARRIER.set(gate);
            try (var socket = send(exchange[0], exchange[1], exchange[2])) {
                assertThat(gate.reached.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(readWhileQuiet(socket)).as(exchange[1]).isEmpty();
                gate.open.countDown();
                assertThat(readAll(socket)).as(exchange[1]).startsWith("HTTP/1.1 200");
            }
        }
    }

    @Test
    void aBarrierThatFailsWithholdsTheAnswer() throws Exception {
        BARRIER.set(() -> {
            throw ApiError.usageNotRecorded();
        });
        String whole = "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        try (var socket = send("/v1/chat/completions", whole)) {
            String response = readAll(socket);
            assertThat(response).startsWith("HTTP/1.1 503").contains("could not be recorded for billing").doesNotContain("chat.completion\"");
        }
        String streamed = "{\"model\":\"" + MODEL + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        try (var socket = send("/v1/chat/completions", streamed)) {
            String response = readAll(socket);
            assertThat(response).startsWith("HTTP/1.1 200").contains("could not be recorded for billing").doesNotContain("[DONE]");
        }
    }

    private static Socket send(String path, String json) throws IOException {
        return send("POST", path, json);
    }

    private static Socket send(String method, String path, String json) throws IOException {
        var socket = new Socket("127.0.0.1", server.port());
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + (body.length > 0 ? "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n" : "") + "\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(body);
        socket.getOutputStream().flush();
        return socket;
    }

    /** What arrives until nothing has for {@link #QUIET_MILLIS}. */
    private static String readWhileQuiet(Socket socket) throws IOException {
        socket.setSoTimeout((int) QUIET_MILLIS);
        var received = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n = socket.getInputStream().read(buffer); n >= 0; n = socket.getInputStream().read(buffer)) {
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException quiet) {
            // nothing more for a while: what came is all the server sent so far
        }
        return received.toString(StandardCharsets.UTF_8);
    }

    private static String readAll(Socket socket) throws IOException {
        socket.setSoTimeout(20_000);
        return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
