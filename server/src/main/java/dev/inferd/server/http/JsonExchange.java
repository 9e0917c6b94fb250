package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.InputStream;

/** Reading JSON request bodies and writing JSON responses. */
final class JsonExchange {

    static final String JSON = "application/json";

    /** Read by OpenAI's SDKs before the status code to decide whether to retry. */
    static final HeaderName SHOULD_RETRY = HeaderNames.create("x-should-retry");

    private JsonExchange() {
    }

    /**
     * The body as JSON, at most {@code maxBytes} of it. Only multipart bodies and content types that
     * do not parse are refused by content type: many local clients ({@code curl -d}) send JSON
     * labelled as a form, so anything else is judged by parsing it.
     */
    static JsonNode readBody(ServerRequest request, long maxBytes) {
        checkContentType(request);
        if (!request.content().hasEntity()) return WireJson.parse(new byte[0]);
        byte[] body;
        try (InputStream in = request.content().inputStream()) {
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
        if (!request.headers().contains(HeaderNames.CONTENT_TYPE)) return;
        HttpMediaType type;
        try {
            type = request.headers().contentType().orElse(null);
        } catch (RuntimeException e) {
            throw ApiError.unsupportedMediaType(request.headers().get(HeaderNames.CONTENT_TYPE).get());
        }
        if (type != null && "multipart".equalsIgnoreCase(type.mediaType().type())) {
            throw ApiError.unsupportedMediaType(type.mediaType().text());
        }
    }

    static void send(ServerResponse response, int status, Object body) {
        response.status(status);
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        byte[] bytes = WireJson.bytes(body);
        WriteDeadline.write(() -> response.send(bytes));
    }

    static void sendError(ServerResponse response, ApiError error) {
        if (error.retryAfterSeconds() > 0) {
            response.header(HeaderNames.RETRY_AFTER, Integer.toString(error.retryAfterSeconds()));
        }
        if (error.shouldRetry() != null) response.header(SHOULD_RETRY, error.shouldRetry().toString());
        send(response, error.status(), error.body());
    }
}
