package dev.inferd.server.http;

/**
 * How the server protects itself under load.
 *
 * @param maxInFlightPerModel requests one model may hold at once (running or queued in its engine);
 *                            one more is answered 429 at once, without reaching the engine, so a
 *                            flood cannot pile up unbounded threads and queues
 * @param capacityRetryAfterSeconds the {@code Retry-After} of that 429
 * @param loadingRetryAfterSeconds the {@code Retry-After} of the 503 for a model still loading
 */
public record ServerOptions(int maxInFlightPerModel, int capacityRetryAfterSeconds, int loadingRetryAfterSeconds,
                            boolean separateReasoning) {

    public static final int DEFAULT_MAX_IN_FLIGHT_PER_MODEL = 64;
    public static final int DEFAULT_LOADING_RETRY_AFTER_SECONDS = 2;

    public ServerOptions {
        if (maxInFlightPerModel < 1) throw new IllegalArgumentException("maxInFlightPerModel must be at least 1");
        if (capacityRetryAfterSeconds < 1 || loadingRetryAfterSeconds < 1) {
            throw new IllegalArgumentException("Retry-After must be at least 1 second");
        }
    }

    /** Thinking text apart from the content ({@code reasoning_content}), as by default. */
    public ServerOptions(int maxInFlightPerModel, int capacityRetryAfterSeconds, int loadingRetryAfterSeconds) {
        this(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, true);
    }

    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_MAX_IN_FLIGHT_PER_MODEL, 1, DEFAULT_LOADING_RETRY_AFTER_SECONDS);
    }

    public ServerOptions withMaxInFlightPerModel(int max) {
        return new ServerOptions(max, capacityRetryAfterSeconds, loadingRetryAfterSeconds, separateReasoning);
    }

    /** With {@code false}, thinking stays in {@code content} for every request. */
    public ServerOptions withSeparateReasoning(boolean separate) {
        return new ServerOptions(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, separate);
    }
}
