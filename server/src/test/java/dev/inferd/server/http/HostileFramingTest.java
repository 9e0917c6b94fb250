package dev.inferd.server.http;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests malformed, odd or old at the HTTP level, over a real socket: chunked bodies, lengths that
 * disagree with the body, {@code Expect}, oversized and too many headers, media types, encodings,
 * HTTP/1.0, methods, half-closed connections. None may get a 5xx or hang; refusals are 4xx in
 * OpenAI's error shape, and what RFC 9112 allows is served.
 */
class HostileFramingTest {

    private static final String CHAT = "{\"model\":\"fake-model\",\"max_tokens\":4,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final int CHAT_LENGTH = CHAT.getBytes(StandardCharsets.UTF_8).length;
    private static final String POST = "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n"
            + "Content-Type: application/json\r\n";

    private static TestServer server;

    /** A request and the statuses it may get. */
    private record Case(String name, String request, boolean halfClose, Set<Integer> statuses) {
    }

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final Set<Integer> OK = Set.of(200);
    private static final Set<Integer> BAD = Set.of(400);

    private static Set<Integer> range(int from, int to) {
        Set<Integer> all = new java.util.HashSet<>();
        for (int s = from; s <= to; s++) all.add(s);
        return all;
    }

    private static final Set<Integer> CLIENT_ERROR = range(400, 499);

    @TestFactory
    Stream<DynamicTest> framing() {
        List<Case> cases = new ArrayList<>();
        String chunked = POST + "Transfer-Encoding: chunked\r\n\r\n";
        String half = CHAT.substring(0, 20);
        String rest = CHAT.substring(20);

        // Chunked bodies RFC 9112 allows.
        cases.add(new Case("chunked", chunked + chunks(half, rest) + "0\r\n\r\n", false, OK));
        cases.add(new Case("chunked, uppercase hex size", chunked + Integer.toHexString(CHAT_LENGTH).toUpperCase()
                + "\r\n" + CHAT + "\r\n0\r\n\r\n", false, OK));
        cases.add(new Case("chunked, size with leading zeros", chunked + "000" + Integer.toHexString(CHAT_LENGTH)
                + "\r\n" + CHAT + "\r\n0\r\n\r\n", false, OK));
        cases.add(new Case("chunk extensions", chunked + hex(half) + ";foo=bar\r\n" + half + "\r\n" + hex(rest)
                + ";a;b=\"q\"\r\n" + rest + "\r\n0;last\r\n\r\n", false, OK));
        cases.add(new Case("trailer fields", chunked + chunks(CHAT) + "0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n",
                false, OK));
        cases.add(new Case("one-byte chunks", chunked + oneByteChunks(CHAT) + "0\r\n\r\n", false, OK));
        cases.add(new Case("Transfer-Encoding in capitals", POST + "Transfer-Encoding: CHUNKED\r\n\r\n" + chunks(CHAT)
                + "0\r\n\r\n", false, OK));
        // Broken chunked bodies.
        cases.add(new Case("chunk size zz", chunked + "zz\r\n" + CHAT + "\r\n0\r\n\r\n", false, CLIENT_ERROR));
        cases.add(new Case("chunk size -5", chunked + "-5\r\n" + CHAT + "\r\n0\r\n\r\n", false, CLIENT_ERROR));
        cases.add(new Case("chunk size over 2^32", chunked + "100000000\r\n" + CHAT + "\r\n0\r\n\r\n", true,
                CLIENT_ERROR));
        cases.add(new Case("chunk size over 2^64", chunked + "1" + "0".repeat(20) + "\r\n" + CHAT + "\r\n0\r\n\r\n",
                true, CLIENT_ERROR));
        cases.add(new Case("chunk shorter than its size", chunked + "ff\r\n" + CHAT + "\r\n0\r\n\r\n", true,
                CLIENT_ERROR));
        cases.add(new Case("chunk without its CRLF", chunked + hex(CHAT) + "\r\n" + CHAT + "0\r\n\r\n", true,
                CLIENT_ERROR));
        cases.add(new Case("no final chunk, then half-close", chunked + chunks(CHAT), true, CLIENT_ERROR));
        cases.add(new Case("chunked and Content-Length", POST + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
                + chunks(CHAT) + "0\r\n\r\n", false, CLIENT_ERROR));
        cases.add(new Case("Transfer-Encoding gzip, chunked", POST + "Transfer-Encoding: gzip, chunked\r\n\r\n"
                + chunks(CHAT) + "0\r\n\r\n", false, CLIENT_ERROR));
        cases.add(new Case("Transfer-Encoding identity", POST + "Transfer-Encoding: identity\r\nContent-Length: "
                + CHAT_LENGTH + "\r\n\r\n" + CHAT, false, Set.of(200, 400)));
        cases.add(new Case("Transfer-Encoding unknown", POST + "Transfer-Encoding: bogus\r\n\r\n" + CHAT, true,
                CLIENT_ERROR));
        // Content-Length that disagrees with the body.
        cases.add(new Case("Content-Length beyond the body, then half-close",
                POST + "Content-Length: " + (CHAT_LENGTH + 50) + "\r\n\r\n" + CHAT, true, CLIENT_ERROR));
        cases.add(new Case("Content-Length short of the body", POST + "Content-Length: " + (CHAT_LENGTH - 5)
                + "\r\n\r\n" + CHAT, false, CLIENT_ERROR));
        cases.add(new Case("Content-Length not a number", POST + "Content-Length: abc\r\n\r\n" + CHAT, false,
                CLIENT_ERROR));
        cases.add(new Case("Content-Length negative", POST + "Content-Length: -1\r\n\r\n" + CHAT, false,
                CLIENT_ERROR));
        cases.add(new Case("two different Content-Lengths", POST + "Content-Length: " + CHAT_LENGTH
                + "\r\nContent-Length: 3\r\n\r\n" + CHAT, false, CLIENT_ERROR));
        cases.add(new Case("Content-Length of 100 GB", POST + "Content-Length: 100000000000\r\n\r\n" + CHAT, true,
                Set.of(413)));
        cases.add(new Case("Content-Length over 2^63", POST + "Content-Length: 99999999999999999999\r\n\r\n" + CHAT,
                true, CLIENT_ERROR));
        cases.add(new Case("no body and no length", POST + "\r\n", false, BAD));
        cases.add(new Case("Content-Length 0", POST + "Content-Length: 0\r\n\r\n", false, BAD));
        // Expect.
        cases.add(new Case("Expect: 100-continue", POST + "Expect: 100-continue\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, OK));
        cases.add(new Case("Expect: something else", POST + "Expect: teapot\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, Set.of(200, 417)));
        // Header sizes and counts.
        cases.add(new Case("a 100 KB header", POST + "X-Big: " + "a".repeat(100_000) + "\r\nContent-Length: "
                + CHAT_LENGTH + "\r\n\r\n" + CHAT, false, Set.of(400, 431)));
        cases.add(new Case("2000 headers", POST + "X-H: v\r\n".repeat(2000) + "Content-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, Set.of(200, 400, 431)));
        cases.add(new Case("a 100 KB path", "GET /" + "a".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", false,
                Set.of(400, 414, 431)));
        cases.add(new Case("header without a colon", POST + "NoColonHere\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, BAD));
        cases.add(new Case("space before the colon", POST + "X-Bad : v\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, BAD));
        cases.add(new Case("obsolete line folding", POST + "X-Fold: a\r\n b\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, Set.of(200, 400)));
        cases.add(new Case("NUL in a header value", POST + "X-Nul: a\u0000b\r\nContent-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, BAD));
        cases.add(new Case("bare LF line ends", POST.replace("\r\n", "\n") + "Content-Length: " + CHAT_LENGTH
                + "\n\n" + CHAT, false, Set.of(200, 400)));
        // Media types and encodings.
        for (String type : List.of(";;;/", "/", "application/", "a/b/c", "application/json; charset", "\u00ff/\u00ff",
                "application/json; charset=\"unterminated")) {
            cases.add(new Case("Content-Type " + type, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                    + type + "\r\nContent-Length: " + CHAT_LENGTH + "\r\n\r\n" + CHAT, false, Set.of(200, 400, 415)));
        }
        cases.add(new Case("multipart", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                + "multipart/form-data; boundary=x\r\nContent-Length: " + CHAT_LENGTH + "\r\n\r\n" + CHAT, false,
                Set.of(415)));
        cases.add(new Case("charset latin1", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                + "application/json; charset=iso-8859-1\r\nContent-Length: " + CHAT_LENGTH + "\r\n\r\n" + CHAT, false,
                Set.of(200, 415)));
        for (String encoding : List.of("gzip", "br", "deflate", "zstd", "bogus")) {
            cases.add(new Case("Content-Encoding " + encoding, POST + "Content-Encoding: " + encoding
                    + "\r\nContent-Length: " + CHAT_LENGTH + "\r\n\r\n" + CHAT, false, Set.of(400, 415)));
        }
        // Versions.
        cases.add(new Case("HTTP/1.0 GET", "GET /v1/models HTTP/1.0\r\n\r\n", false, OK));
        cases.add(new Case("HTTP/1.0 POST", POST.replace("HTTP/1.1", "HTTP/1.0") + "Content-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, OK));
        cases.add(new Case("HTTP/1.0 streamed", POST.replace("HTTP/1.1", "HTTP/1.0") + "Content-Length: "
                + (CHAT_LENGTH + 14) + "\r\n\r\n" + CHAT.replaceFirst("\\{", "{\"stream\":true,"), false, OK));
        cases.add(new Case("HTTP/2.0 in an HTTP/1 request line", "GET /v1/models HTTP/2.0\r\n\r\n", false,
                Set.of(400, 505)));
        cases.add(new Case("HTTP/9.9", "GET /v1/models HTTP/9.9\r\n\r\n", false, Set.of(400, 505)));
        cases.add(new Case("no version", "GET /v1/models\r\n\r\n", false, CLIENT_ERROR));
        cases.add(new Case("HTTP/1.1 without Host", "GET /v1/models HTTP/1.1\r\n\r\n", false, Set.of(200, 400)));
        // Methods.
        cases.add(new Case("lowercase post", POST.replace("POST", "post") + "Content-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, false, Set.of(400, 405)));
        cases.add(new Case("lowercase get", "get /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", false, Set.of(400, 405)));
        cases.add(new Case("HEAD on a GET route", "HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", false, OK));
        for (String method : List.of("PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO", "X".repeat(200), "GE T")) {
            cases.add(new Case("method " + (method.length() > 20 ? method.length() + " chars" : method),
                    method + " /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false,
                    Set.of(400, 405)));
        }
        cases.add(new Case("CONNECT", "CONNECT localhost:80 HTTP/1.1\r\nHost: x\r\n\r\n", false, Set.of(400, 404, 405)));
        // Request targets.
        for (String target : List.of("*", "v1/models", "/v1/models/%", "/v1/models/%00", "/v1/../v1/models",
                "/v1/models?x=%zz", "//v1//models", "/v1/models#frag", "/\u00ff")) {
            cases.add(new Case("target " + target, "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n", false,
                    Set.of(200, 400, 404)));
        }
        // Half-close after a complete request: the answer still comes.
        cases.add(new Case("half-close after a complete request", POST + "Content-Length: " + CHAT_LENGTH
                + "\r\n\r\n" + CHAT, true, OK));
        cases.add(new Case("half-close after a complete chunked request", chunked + chunks(CHAT) + "0\r\n\r\n", true,
                OK));
        cases.add(new Case("garbage", "\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003", true,
                Set.of(-1, 400)));
        cases.add(new Case("empty lines before the request", "\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", false,
                Set.of(200, 400)));

        return cases.stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
    }

    /** HTTP/1.0 is served with its own semantics: one request per connection, closed after the answer. */
    @org.junit.jupiter.api.Test
    void http10RequestsAreServedAndTheConnectionClosed() throws Exception {
        for (String request : List.of("GET /v1/models HTTP/1.0\r\n\r\n",
                POST.replace("HTTP/1.1", "HTTP/1.0") + "Content-Length: " + CHAT_LENGTH + "\r\n\r\n" + CHAT)) {
            try (var socket = new java.net.Socket("127.0.0.1", server.server.port())) {
                socket.setSoTimeout(5_000);
                socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
                RawHttp.Response response = RawHttp.read(socket.getInputStream(), true);
                assertThat(response.status()).as(response.toString()).isEqualTo(200);
                assertThat(response.body()).startsWith("{");
                assertThat(socket.getInputStream().read()).as("the connection is closed after the answer").isEqualTo(-1);
            }
        }
    }

    private static void check(Case c) throws Exception {
        RawHttp.Response response = RawHttp.exchange(server.server.port(),
                c.request().getBytes(StandardCharsets.ISO_8859_1), c.halfClose());
        assertThat(response.status()).as(response.toString()).isIn(c.statuses());
        if (response.status() >= 400) {
            assertThat(response.hasErrorShape()).as(response.toString()).isTrue();
        }
    }

    private static String hex(String s) {
        return Integer.toHexString(s.getBytes(StandardCharsets.UTF_8).length);
    }

    private static String chunks(String... parts) {
        StringBuilder out = new StringBuilder();
        for (String p : parts) out.append(hex(p)).append("\r\n").append(p).append("\r\n");
        return out.toString();
    }

    private static String oneByteChunks(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) out.append("1\r\n").append(c).append("\r\n");
        return out.toString();
    }
}
