package dev.inferd.server.http;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Answers given before the request body is read (a 413 from the declared length, a 404) reach clients
 * that send their whole body before reading anything: the server reads and discards the rest of the body
 * before it closes ({@link UnreadBody}), and keeps the connection when the rest was small.
 */
class EarlyAnswerTest {

    /** Over the 25 MiB upload limit, as the failing Python upload was. */
    private static final int UPLOAD_BYTES = 27_000_000;
    /** Over the 4 MiB JSON limit. */
    private static final int CHAT_BYTES = 20_000_000;

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aTooLargeUploadSentWholeBeforeReadingGetsIts413() throws IOException {
        byte[] body = MultipartForm.body(java.util.Map.of("model", "whisper-1"), "big.wav", "audio/wav", new byte[UPLOAD_BYTES]);
        RawHttp.Response response = sendAllThenRead("/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE, body);

        assertThat(response.status()).isEqualTo(413);
        assertThat(response.hasErrorShape()).isTrue();
        assertThat(response.body()).contains("26214400");
        assertThat(response.headers()).containsEntry("connection", "close");
    }

    @Test
    void aTooLargeChatBodySentWholeBeforeReadingGetsIts413() throws IOException {
        RawHttp.Response response = sendAllThenRead("/v1/chat/completions", "application/json", jsonOf(CHAT_BYTES));

        assertThat(response.status()).isEqualTo(413);
        assertThat(response.hasErrorShape()).isTrue();
        assertThat(response.headers()).containsEntry("connection", "close");
    }

    @Test
    void pythonsHttpClientSeesThe413OfAnUploadAndOfAChatBody() throws Exception {
        Fixtures.prerequisite(python3() != null, "python3 is not on the PATH");
        Path script = Files.createTempFile("inferd-early-answer", ".py");
        try {
            Files.writeString(script, """
                    import http.client, sys
                    port, path, size, ctype = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    connection.request("POST", path, body=b"x" * size, headers={"Content-Type": ctype})
                    response = connection.getresponse()
                    print(response.status, response.getheader("Connection"), response.read().decode())
                    """);
            assertThat(python(script, "/v1/audio/transcriptions", UPLOAD_BYTES, MultipartForm.CONTENT_TYPE))
                    .startsWith("413 close {\"error\":");
            assertThat(python(script, "/v1/chat/completions", CHAT_BYTES, "application/json"))
                    .startsWith("413 close {\"error\":");
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    void theOpenAiJavaClientSeesThe413AsAnApiErrorWithItsBody() throws IOException {
        Path big = Files.createTempFile("inferd-big", ".wav");
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(server.base() + "/v1").apiKey("sk-test")
                .maxRetries(0).timeout(Duration.ofSeconds(60)).build();
        try {
            Files.write(big, new byte[UPLOAD_BYTES]);
            assertThatThrownBy(() -> client.audio().transcriptions().create(TranscriptionCreateParams.builder()
                    .file(big).model("whisper-1").build()))
                    .isInstanceOf(OpenAIServiceException.class)
                    .satisfies(e -> {
                        assertThat(((OpenAIServiceException) e).statusCode()).isEqualTo(413);
                        assertThat(e.getMessage()).contains("26214400");
                    });

            String huge = "x".repeat(CHAT_BYTES);
            assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model(TestServer.MODEL).addUserMessage(huge).build()))
                    .isInstanceOf(OpenAIServiceException.class)
                    .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isEqualTo(413));
        } finally {
            client.close();
            Files.deleteIfExists(big);
        }
    }

    @Test
    void aConnectionRefusedEarlyWithASmallBodyServesItsNextRequest() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(RawHttp.TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();

            out.write(RawHttp.post("/v1/no-such-route", jsonOf(20_000), ""));
            RawHttp.Response refused = RawHttp.read(in, true);
            assertThat(refused.status()).isEqualTo(404);
            assertThat(refused.headers()).doesNotContainKey("connection");

            // the body of a refused request declared in full, then sent in two parts with a pause
            byte[] request = RawHttp.post("/v1/models", jsonOf(30_000), "");
            out.write(Arrays.copyOf(request, request.length - 10_000));
            out.flush();
            sleep(200);
            out.write(Arrays.copyOfRange(request, request.length - 10_000, request.length));
            RawHttp.Response refusedAgain = RawHttp.read(in, true);
            assertThat(refusedAgain.status()).isEqualTo(405);
            assertThat(refusedAgain.headers()).doesNotContainKey("connection");

            // a chunked body
            out.write(("POST /v1/no-such-route HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "2710\r\n" + "x".repeat(10_000) + "\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Response refusedChunked = RawHttp.read(in, true);
            assertThat(refusedChunked.status()).isEqualTo(404);
            assertThat(refusedChunked.headers()).doesNotContainKey("connection");

            out.write(RawHttp.request("GET", "/v1/models", "HTTP/1.1", "", "").getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Response next = RawHttp.read(in, true);
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body()).contains(TestServer.MODEL);
        }
    }

    @Test
    void aTooLargeDeclaredBodyWithALargeRestSaysItWillClose() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(RawHttp.TIMEOUT_MILLIS);
            byte[] head = ("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 5000000\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            socket.getOutputStream().write(head);
            RawHttp.Response response = RawHttp.read(socket.getInputStream(), true);
            assertThat(response.status()).isEqualTo(413);
            assertThat(response.headers()).containsEntry("connection", "close");
        }
    }

    @Test
    void aRefusalBeforeA100ContinueClosesWithoutAskingForTheBody() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(RawHttp.TIMEOUT_MILLIS);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 30000000\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            assertThat(new String(in.readNBytes(12), StandardCharsets.ISO_8859_1)).as("no 100 Continue first")
                    .isEqualTo("HTTP/1.1 413");
            String rest = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(rest.toLowerCase(java.util.Locale.ROOT)).contains("connection: close").contains("\"error\"");
        }
    }

    /** Writes the request and its whole body, as Python's http.client does, and only then reads. */
    private static RawHttp.Response sendAllThenRead(String path, String contentType, byte[] body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + contentType
                    + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return RawHttp.read(socket.getInputStream(), true);
        }
    }

    private static byte[] jsonOf(int size) {
        String prefix = "{\"model\":\"" + TestServer.MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String suffix = "\"}]}";
        return (prefix + "x".repeat(size - prefix.length() - suffix.length()) + suffix).getBytes(StandardCharsets.UTF_8);
    }

    private static String python(Path script, String path, int size, String contentType) throws Exception {
        Process p = new ProcessBuilder(python3(), script.toString(), Integer.toString(server.server.port()), path,
                Integer.toString(size), contentType).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private static String python3() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "python3");
            if (Files.isExecutable(candidate)) return candidate.toString();
        }
        return null;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
