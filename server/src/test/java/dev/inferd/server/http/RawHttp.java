package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A client that writes exactly the bytes a test gives it, for requests no HTTP library would send,
 * and reads one response with a socket timeout, so that a server that never answers fails the test
 * instead of hanging it.
 */
final class RawHttp {

    static final int TIMEOUT_MILLIS = 8_000;

    /** One response as read from the wire; {@code status} is -1 when the server closed without answering. */
    record Response(int status, Map<String, String> headers, String body) {

        boolean hasErrorShape() {
            try {
                JsonNode error = TestServer.MAPPER.readTree(body).get("error");
                return error != null && error.isObject() && error.get("message").isTextual()
                        && error.get("type").isTextual() && error.has("param") && error.has("code");
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private RawHttp() {
    }

    static String request(String method, String path, String version, String headers, String body) {
        return method + " " + path + " " + version + "\r\nHost: localhost\r\n" + headers + "\r\n" + body;
    }

    /** A POST with a correct Content-Length. */
    static byte[] post(String path, byte[] body, String extraHeaders) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + extraHeaders + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /** Sends the bytes, then half-closes when asked, and reads one response (no body for HEAD). */
    static Response exchange(int port, byte[] bytes, boolean halfClose) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            if (halfClose) socket.shutdownOutput();
            boolean head = bytes.length > 5 && new String(bytes, 0, 5, StandardCharsets.ISO_8859_1).equals("HEAD ");
            return read(socket.getInputStream(), !head);
        }
    }

    static Response exchange(int port, String request) throws IOException {
        return exchange(port, request.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    /** Reads one response: the status line, headers, and a body by Content-Length, chunks or end of stream. */
    static Response read(InputStream in, boolean withBody) throws IOException {
        String statusLine;
        try {
            statusLine = line(in);
            // Interim responses (100 Continue) come before the final one.
            while (statusLine != null && statusLine.matches("HTTP/1\\.[01] 1\\d\\d.*")) {
                while (!line(in).isEmpty()) {
                    // interim headers
                }
                statusLine = line(in);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no response within " + TIMEOUT_MILLIS + " ms", e);
        }
        if (statusLine == null || statusLine.isEmpty()) return new Response(-1, Map.of(), "");
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        String h;
        while ((h = line(in)) != null && !h.isEmpty()) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (!withBody) {
            return new Response(status, headers, "");
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            while (true) {
                int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                if (size == 0) break;
                body.write(in.readNBytes(size));
                line(in);
            }
        } else if (!headers.containsKey("content-length")) {
            try {
                body.write(in.readAllBytes());
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the response body never ended", e);
            }
        }
        return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') break;
            if (b != '\r') line.write(b);
        }
        if (b == -1 && line.size() == 0) return null;
        return line.toString(StandardCharsets.ISO_8859_1);
    }
}
