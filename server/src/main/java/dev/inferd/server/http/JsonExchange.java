package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;

import java.io.IOException;
import java.io.InputStream;

/** Reading JSON request bodies and writing JSON responses. */
final class JsonExchange {

    static final String JSON = "application/json";

    /** Read by OpenAI's SDKs before the status code to decide whether to retry. */
    static final String SHOULD_RETRY = "x-should-retry";

    private JsonExchange() {
    }

    /**
     * The body as JSON, at most {@code maxBytes} of it. Only multipart bodies and content types that
     * do not parse are refused by content type: many local clients ({@code curl -d}) send JSON
     * labelled as a form, so anything else is judged by parsing it.
     */
    static JsonNode readBody(ServerRequest request, long maxBytes) {
        checkContentType(request);
        checkContentEncoding(request);
        if (!request.hasBody()) return WireJson.parse(new byte[0]);
        if (request.contentLength() > maxBytes) throw ApiError.payloadTooLarge(maxBytes);
        byte[] body;
        try (InputStream in = request.body()) {
            body = in.readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
        } catch (IOException | RuntimeException e) {
            // The HTTP layer reports a body it cannot read (a broken chunk, a connection closed short
            // of its Content-Length, a read timeout) as one of several exceptions; each is the client's doing.
            throw ApiError.unreadableBody(e.getMessage());
        }
        if (body.length > maxBytes) throw ApiError.payloadTooLarge(maxBytes);
        return WireJson.parse(body);
    }

    private static void checkContentType(ServerRequest request) {
        String header = request.header("Content-Type");
        if (header == null) return;
        String type = mediaType(header);
        if (type == null) throw ApiError.unsupportedMediaType(header);
        if (type.startsWith("multipart/")) throw ApiError.unsupportedMediaType(type);
    }

    /**
     * The {@code type/subtype} of a {@code Content-Type} in lowercase, or null when it does not parse
     * (RFC 9110: two tokens around one slash, then parameters).
     */
    static String mediaType(String header) {
        String type = header.strip();
        int semicolon = type.indexOf(';');
        String essence = (semicolon < 0 ? type : type.substring(0, semicolon)).strip();
        int slash = essence.indexOf('/');
        if (slash <= 0 || slash == essence.length() - 1 || essence.indexOf('/', slash + 1) >= 0) return null;
        for (int i = 0; i < essence.length(); i++) {
            char c = essence.charAt(i);
            if (c != '/' && !isTokenChar(c)) return null;
        }
        if (semicolon >= 0 && !parametersParse(type.substring(semicolon + 1))) return null;
        return essence.toLowerCase(java.util.Locale.ROOT);
    }

    private static boolean parametersParse(String parameters) {
        for (String parameter : parameters.split(";")) {
            String p = parameter.strip();
            if (p.isEmpty()) continue;
            int eq = p.indexOf('=');
            if (eq <= 0) return false;
            String value = p.substring(eq + 1);
            if (value.startsWith("\"") && (value.length() < 2 || !value.endsWith("\""))) return false;
        }
        return true;
    }

    private static boolean isTokenChar(char c) {
        return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
    }

    /** Bodies come uncompressed: the server decodes no {@code Content-Encoding}. */
    private static void checkContentEncoding(ServerRequest request) {
        String encoding = request.header("Content-Encoding");
        if (encoding != null && !encoding.isBlank() && !encoding.strip().equalsIgnoreCase("identity")) {
            throw new ApiError(400, ApiError.INVALID_REQUEST, "Content-Encoding " + encoding.strip()
                    + " is not supported: send the request body uncompressed.", null, "unsupported_content_encoding");
        }
    }

    static void send(ServerResponse response, int status, Object body) {
        response.status(status);
        response.header("Content-Type", JSON);
        response.send(WireJson.bytes(body));
    }

    /** Sends {@code error} in the error shape of the protocol the request's path belongs to. */
    static void sendError(ServerResponse response, ApiError error, WireProtocol protocol) {
        if (error.retryAfterSeconds() > 0) {
            response.header("Retry-After", Integer.toString(error.retryAfterSeconds()));
        }
        if (error.shouldRetry() != null) response.header(SHOULD_RETRY, error.shouldRetry().toString());
        send(response, error.status(), protocol.errorBody(error, response.header(ApiRouter.REQUEST_ID)));
    }
}
