package dev.inferd.server.cloud;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;
import dev.inferd.server.http.WireProtocol;

import java.net.InetSocketAddress;

/** Responses the hosted layer sends itself, in the same shapes as the API's own. */
public final class CloudHttp {

    /** Set on every response by the HTTP layer before any handler runs; echoed in error bodies. */
    private static final String REQUEST_ID = "x-request-id";
    private static final String SHOULD_RETRY = "x-should-retry";

    private CloudHttp() {
    }

    public static void sendJson(ServerResponse response, int status, Object body) {
        response.status(status);
        response.header("Content-Type", "application/json");
        response.send(WireJson.bytes(body));
    }

    public static void sendError(ServerResponse response, ApiError error) {
        sendError(response, error, WireProtocol.OPENAI);
    }

    /** Sends {@code error} in the error shape of the API route {@code request} went to. */
    public static void sendError(ServerRequest request, ServerResponse response, ApiError error) {
        sendError(response, error, WireProtocol.of(request.path()));
    }

    private static void sendError(ServerResponse response, ApiError error, WireProtocol protocol) {
        if (error.retryAfterSeconds() > 0) response.header("Retry-After", Integer.toString(error.retryAfterSeconds()));
        if (error.shouldRetry() != null) response.header(SHOULD_RETRY, error.shouldRetry().toString());
        sendJson(response, error.status(), protocol.errorBody(error, response.header(REQUEST_ID)));
    }

    /** The client's address, for the audit log. */
    public static String clientAddress(ServerRequest request) {
        return request.remoteAddress() instanceof InetSocketAddress a
                ? a.getAddress().getHostAddress() : String.valueOf(request.remoteAddress());
    }
}
