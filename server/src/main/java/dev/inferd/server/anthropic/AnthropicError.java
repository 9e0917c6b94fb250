package dev.inferd.server.anthropic;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.inferd.server.openai.ApiError;

/**
 * The error body of Anthropic's API, {@code {"type":"error","error":{"type","message"},"request_id"}}: the
 * same {@link ApiError} that the OpenAI routes send in OpenAI's shape, with Anthropic's error type chosen by
 * the status, since Anthropic's SDKs read the type and the status, never OpenAI's codes.
 */
public record AnthropicError(String type, Detail error, @JsonInclude(JsonInclude.Include.NON_NULL) String requestId) {

    public record Detail(String type, String message) {
    }

    public static AnthropicError of(ApiError e, String requestId) {
        return new AnthropicError("error", new Detail(typeOf(e.status()), e.getMessage()), requestId);
    }

    /** Anthropic's error type for a status (its documented table; 503 is its "overloaded" condition). */
    public static String typeOf(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            case 504 -> "timeout_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }
}
