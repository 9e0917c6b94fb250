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
import java.io.UncheckedIOException;

/** Reading JSON request bodies and writing JSON responses. */
final class JsonExchange {

    /** JSON requests are small; a long conversation is a few MB at most. */
    static final long MAX_BODY_BYTES = 32L * 1024 * 1024;

    /** Read by OpenAI's SDKs before the status code to decide whether to retry. */
    static final HeaderName SHOULD_RETRY = HeaderNames.create("x-should-retry");

    private JsonExchange() {
    }

    /**
     * The body as JSON. Only multipart bodies are refused by content type: many local clients
     * ({@code curl -d}) send JSON labelled as a form, so anything else is judged by parsing it.
     */
    static JsonNode readBody(ServerRequest request) {
        request.headers().contentType().map(HttpMediaType::mediaType).ifPresent(type -> {
            if ("multipart".equalsIgnoreCase(type.type())) throw ApiError.unsupportedMediaType(type.text());
        });
        if (!request.content().hasEntity()) return WireJson.parse(new byte[0]);
        byte[] body;
        try (InputStream in = request.content().inputStream()) {
            body = in.readNBytes((int) MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (body.length > MAX_BODY_BYTES) throw ApiError.payloadTooLarge(MAX_BODY_BYTES);
        return WireJson.parse(body);
    }

    static void send(ServerResponse response, int status, Object body) {
        response.status(status);
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send(WireJson.bytes(body));
    }

    static void sendError(ServerResponse response, ApiError error) {
        if (error.retryAfterSeconds() > 0) {
            response.header(HeaderNames.RETRY_AFTER, Integer.toString(error.retryAfterSeconds()));
        }
        if (error.shouldRetry() != null) response.header(SHOULD_RETRY, error.shouldRetry().toString());
        send(response, error.status(), error.body());
    }
}
