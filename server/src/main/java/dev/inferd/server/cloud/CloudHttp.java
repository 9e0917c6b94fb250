package dev.inferd.server.cloud;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Responses the hosted layer sends itself, in the same shapes as the API's own. */
public final class CloudHttp {

    public static final HeaderName REQUEST_ID = HeaderNames.create("x-request-id");
    private static final HeaderName SHOULD_RETRY = HeaderNames.create("x-should-retry");
    private static final SecureRandom RANDOM = new SecureRandom();

    private CloudHttp() {
    }

    public static void sendJson(ServerResponse response, int status, Object body) {
        response.status(status);
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send(WireJson.bytes(body));
    }

    public static void sendError(ServerResponse response, ApiError error) {
        if (error.retryAfterSeconds() > 0) response.header(HeaderNames.RETRY_AFTER, Integer.toString(error.retryAfterSeconds()));
        if (error.shouldRetry() != null) response.header(SHOULD_RETRY, error.shouldRetry().toString());
        if (!response.headers().contains(REQUEST_ID)) response.header(REQUEST_ID, requestId());
        sendJson(response, error.status(), error.body());
    }

    /**
     * A query parameter, or null. Helidon's typed accessors go through its mapper registry, which this server
     * does not set up; the plain string does not.
     */
    public static String query(io.helidon.common.uri.UriQuery query, String name) {
        return query.contains(name) ? query.get(name) : null;
    }

    public static String requestId() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "req_" + HexFormat.of().formatHex(bytes);
    }

    /** The client's address, for the audit log. */
    public static String clientAddress(ServerRequest request) {
        return request.remotePeer().address() instanceof InetSocketAddress a
                ? a.getAddress().getHostAddress() : String.valueOf(request.remotePeer().address());
    }
}
