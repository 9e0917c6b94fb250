package dev.inferd.server.http;

import dev.inferd.server.anthropic.AnthropicError;
import dev.inferd.server.openai.ApiError;

/**
 * The wire protocol a path belongs to, which decides the shape of every error answered on it, also the
 * ones from shared code paths (an unknown path under the route, a wrong method, a body too large, a
 * full queue, a missing key): Anthropic's SDKs read {@code {"type":"error","error":{...}}} on
 * {@code /v1/messages}, OpenAI's read {@code {"error":{...}}} everywhere else.
 */
public enum WireProtocol {
    OPENAI,
    ANTHROPIC;

    static final String MESSAGES = "/v1/messages";
    /** The header Anthropic's SDKs read the request's id from; {@code x-request-id} carries it too. */
    static final String ANTHROPIC_REQUEST_ID = "request-id";

    public static WireProtocol of(String path) {
        return path != null && (path.equals(MESSAGES) || path.startsWith(MESSAGES + "/")) ? ANTHROPIC : OPENAI;
    }

    /** The error body of this protocol for {@code error}. */
    public Object errorBody(ApiError error, String requestId) {
        return switch (this) {
            case OPENAI -> error.body();
            case ANTHROPIC -> AnthropicError.of(error, requestId);
        };
    }
}
