package dev.inferd.server.http;

/**
 * What a layer in front of the routes (the hosted gateway's keys, scopes and metering) learns from a
 * request as its handler sees it. The layer attaches one to the request before routing; handlers
 * report through {@link #of}, which is a no-op hook when nothing is attached ({@code serve}).
 */
public interface RequestHook {

    /** Attached to no request: every report is dropped. */
    RequestHook NONE = new RequestHook() {
    };

    /**
     * The request names {@code model}, before any work is done for it. Throws an
     * {@link dev.inferd.server.openai.ApiError} to refuse the request (a key whose scope excludes the model).
     */
    default void model(String model) {
    }

    /**
     * Who owns what the request stores (kept responses): the account under the hosted gateway, the
     * empty string under {@code serve}, where there is one owner.
     */
    default String owner() {
        return "";
    }

    /** One generation's token counts; reported also for a generation the client cancelled. */
    default void tokens(int promptTokens, int completionTokens, int cachedTokens) {
    }

    /** Milliseconds of audio a transcription handled (billed per second, rounded up). */
    default void audio(long millis) {
    }

    /** The request's generation was stopped before it finished: its client left, or its response failed. */
    default void cancelled() {
    }

    /** The status the request ended with ({@value ApiRouter#CLIENT_CLOSED} when the client left first). */
    default void finished(int status) {
    }

    static void attach(ServerRequest request, RequestHook hook) {
        request.attribute(RequestHook.class.getName(), hook);
    }

    static RequestHook of(ServerRequest request) {
        return request.attribute(RequestHook.class.getName()) instanceof RequestHook hook ? hook : NONE;
    }
}
