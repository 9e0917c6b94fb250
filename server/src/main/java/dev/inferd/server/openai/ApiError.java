package dev.inferd.server.openai;

/**
 * A request that ends in an OpenAI-shaped error body. Thrown anywhere below a route handler and
 * turned into {@code {"error":{"message","type","param","code"}}} at the edge.
 *
 * <p>The seed contract fixes {@code code} as the HTTP status (an integer), so OpenAI's string codes
 * such as {@code model_not_found} cannot go there; they are kept in {@link #reason} for logs and
 * for a later switch, and the message says the same thing in words.
 */
public final class ApiError extends RuntimeException {

    public static final String INVALID_REQUEST = "invalid_request_error";
    public static final String INTERNAL = "internal_error";
    public static final String RATE_LIMIT = "rate_limit_error";
    public static final String UNAVAILABLE = "service_unavailable_error";

    /**
     * The longest {@code Retry-After} this server sends. OpenAI's Java SDK sleeps for whatever the
     * header says, without a cap, so a long value would freeze a client.
     */
    public static final int MAX_RETRY_AFTER_SECONDS = 30;

    private final int status;
    private final String type;
    private final String param;
    private final String reason;
    private final int retryAfterSeconds;
    private final Boolean shouldRetry;

    public ApiError(int status, String type, String message, String param, String reason) {
        this(status, type, message, param, reason, 0, null);
    }

    private ApiError(int status, String type, String message, String param, String reason, int retryAfterSeconds,
                     Boolean shouldRetry) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.reason = reason;
        this.retryAfterSeconds = retryAfterSeconds;
        this.shouldRetry = shouldRetry;
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    /** The offending request field (a path such as {@code messages[0].role}), or null. */
    public String param() {
        return param;
    }

    /** OpenAI's machine-readable code for this error ({@code model_not_found}, ...), or null. */
    public String reason() {
        return reason;
    }

    /** The {@code Retry-After} header in seconds (1 to {@link #MAX_RETRY_AFTER_SECONDS}), or 0 for none. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** The {@code x-should-retry} header, which overrides the SDKs' status-based retry decision; null for none. */
    public Boolean shouldRetry() {
        return shouldRetry;
    }

    public ErrorBody body() {
        return new ErrorBody(new ErrorBody.Detail(getMessage(), type, param, status));
    }

    public static ApiError invalid(String param, String message) {
        return new ApiError(400, INVALID_REQUEST, message, param, "invalid_value");
    }

    public static ApiError invalidType(String param, String expected, String got) {
        return new ApiError(400, INVALID_REQUEST,
                "Invalid type for '" + param + "': expected " + expected + ", but got " + got + " instead.",
                param, "invalid_type");
    }

    public static ApiError missing(String param) {
        return new ApiError(400, INVALID_REQUEST, "Missing required parameter: '" + param + "'.",
                param, "missing_required_parameter");
    }

    public static ApiError unsupported(String param, String message) {
        return new ApiError(400, INVALID_REQUEST, message, param, "unsupported_parameter");
    }

    public static ApiError unparsableJson(String detail) {
        return new ApiError(400, INVALID_REQUEST,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
                        + "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not "
                        + "valid JSON. " + detail + ")",
                null, null);
    }

    public static ApiError modelNotFound(String model) {
        return new ApiError(404, INVALID_REQUEST,
                "The model `" + model + "` does not exist or you do not have access to it.", "model",
                "model_not_found");
    }

    public static ApiError contextLengthExceeded(String param, int contextLength, int promptTokens) {
        return contextLengthExceeded(param, contextLength, promptTokens, false);
    }

    /** @param lowerBound the prompt was refused before it was tokenized whole: it has at least that many tokens */
    public static ApiError contextLengthExceeded(String param, int contextLength, int promptTokens, boolean lowerBound) {
        return new ApiError(400, INVALID_REQUEST,
                "This model's maximum context length is " + contextLength + " tokens. However, your "
                        + ("messages".equals(param) ? "messages" : "prompt") + " resulted in " + (lowerBound ? "at least " : "") + promptTokens
                        + " tokens, which leaves no room for a completion. Please reduce the length of the "
                        + ("messages".equals(param) ? "messages." : "prompt."),
                param, "context_length_exceeded");
    }

    /** A {@code max_tokens} that the context cannot hold after the prompt, worded as OpenAI words it. */
    public static ApiError completionBeyondContext(String param, int contextLength, int promptTokens, int requested) {
        String what = "messages".equals(param) ? "messages" : "prompt";
        return new ApiError(400, INVALID_REQUEST,
                "This model's maximum context length is " + contextLength + " tokens. However, you requested "
                        + ((long) promptTokens + requested) + " tokens (" + promptTokens + " in the " + what + ", "
                        + requested + " in the completion). Please reduce the length of the " + what
                        + " or completion.",
                "max_tokens", "context_length_exceeded");
    }

    public static ApiError unknownUrl(String method, String path) {
        return new ApiError(404, INVALID_REQUEST,
                "Unknown request URL: " + method + " " + path + ". Please check the URL for typos, or see the docs "
                        + "at https://platform.openai.com/docs/api-reference/.",
                null, "unknown_url");
    }

    public static ApiError methodNotAllowed(String method, String path, String allowed) {
        return new ApiError(405, INVALID_REQUEST,
                "Method " + method + " is not allowed for " + path + ". Use " + allowed + ".", null,
                "method_not_allowed");
    }

    public static ApiError unsupportedMediaType(String contentType) {
        return new ApiError(415, INVALID_REQUEST,
                "Unsupported Content-Type '" + contentType + "'. Send the request body as JSON with "
                        + "'Content-Type: application/json'.",
                null, "unsupported_media_type");
    }

    /** The body's framing broke off or was malformed (chunked encoding, a short body, a read timeout). */
    public static ApiError unreadableBody(String detail) {
        return new ApiError(400, INVALID_REQUEST, "The request body could not be read"
                + (detail == null || detail.isBlank() ? "." : ": " + detail.strip() + "."), null, "unreadable_body");
    }

    public static ApiError payloadTooLarge(long limit) {
        return new ApiError(413, INVALID_REQUEST,
                "The request body is larger than the limit of " + limit + " bytes.", null, "payload_too_large");
    }

    public static ApiError internal(String requestId) {
        return new ApiError(500, INTERNAL,
                "The server had an error processing your request. Sorry about that! (Please include the request ID "
                        + requestId + " if you report it.)",
                null, null);
    }

    /**
     * 429: the engine's queue or this server's in-flight cap for the model is full. Retryable, after a
     * short wait.
     */
    public static ApiError busy(String message, int retryAfterSeconds) {
        return new ApiError(429, RATE_LIMIT, message, null, "rate_limit_exceeded",
                Math.clamp(retryAfterSeconds, 1, MAX_RETRY_AFTER_SECONDS), true);
    }

    /** 503: the model is known but still loading. */
    public static ApiError modelLoading(String model, int retryAfterSeconds) {
        return new ApiError(503, UNAVAILABLE,
                "The model `" + model + "` is still loading. Please retry in a few seconds.", "model", "model_loading",
                Math.clamp(retryAfterSeconds, 1, MAX_RETRY_AFTER_SECONDS), true);
    }

    /** 503: the model was configured but failed to load; retrying will not help. */
    public static ApiError modelFailed(String model, String why) {
        return new ApiError(503, UNAVAILABLE, "The model `" + model + "` failed to load: " + why, "model",
                "model_load_failed", 0, false);
    }

    /** 503: the model is larger than the server's whole memory budget, so it can never be loaded; retrying will not help. */
    public static ApiError modelTooLarge(String model, String why) {
        return new ApiError(503, UNAVAILABLE, "The model `" + model + "` cannot be loaded on this server: " + why + ".",
                "model", "model_too_large", 0, false);
    }

    /** 503: the model could be loaded, but every loaded model is busy and the budget leaves no room now. */
    public static ApiError noRoomForModel(String model, String why, int retryAfterSeconds) {
        return new ApiError(503, UNAVAILABLE, "The model `" + model + "` is not loaded and cannot be loaded now: " + why,
                "model", "model_capacity", Math.clamp(retryAfterSeconds, 1, MAX_RETRY_AFTER_SECONDS), true);
    }

    /**
     * 503: the request's usage record could not be committed, so the hosted gateway does not hand out its answer (an
     * answer without a record would go unbilled). Retryable.
     */
    public static ApiError usageNotRecorded() {
        return new ApiError(503, UNAVAILABLE, "The request could not be recorded for billing, so its answer was withheld. "
                + "Please retry in a few seconds.", null, "usage_not_recorded", 1, true);
    }
}
