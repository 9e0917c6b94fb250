package dev.inferd.server.http;

import dev.inferd.server.responses.MemoryResponseStore;
import dev.inferd.server.responses.ResponseStore;

import java.time.Duration;

/**
 * How the server protects itself under load and from clients that misbehave.
 *
 * @param maxInFlightPerModel requests one model may hold at once (running or queued in its engine);
 *                            one more is answered 429 at once, without reaching the engine, so a
 *                            flood cannot pile up unbounded threads and queues
 * @param capacityRetryAfterSeconds the {@code Retry-After} of that 429
 * @param loadingRetryAfterSeconds the {@code Retry-After} of the 503 for a model still loading
 * @param limits the bounds on connections, bodies and slow clients
 * @param separateReasoning whether thinking goes to {@code reasoning_content} (else it stays in {@code content})
 * @param responses where {@code /v1/responses} keeps responses (in memory within a bound by default)
 */
public record ServerOptions(int maxInFlightPerModel, int capacityRetryAfterSeconds, int loadingRetryAfterSeconds,
                            Limits limits, boolean separateReasoning, ResponseStore responses) {

    public static final int DEFAULT_MAX_IN_FLIGHT_PER_MODEL = 64;
    public static final int DEFAULT_LOADING_RETRY_AFTER_SECONDS = 2;

    /**
     * Bounds that keep one client, or many, from holding the server.
     *
     * @param maxBodyBytes the largest JSON request body (chat, legacy completions); a 413 beyond
     * @param readTimeout the time a request's headers have to arrive in, in total; also how long the server
     *                    waits for the next bytes of a body, and how long it reads a body it answered early
     * @param idleTimeout how long a keep-alive connection may sit between requests
     * @param writeTimeout how long a write to a client that does not read may block; past it the
     *                     client's generation is cancelled and its model slot freed
     * @param maxConnections open connections at once; more are not accepted until some close
     * @param minBodyBytesPerSecond the slowest a request body may arrive, on average after its first
     *                              seconds; a slower one is refused and its connection closed (0: no minimum)
     */
    public record Limits(long maxBodyBytes, Duration readTimeout, Duration idleTimeout, Duration writeTimeout,
                         int maxConnections, long minBodyBytesPerSecond) {

        /** A long conversation is a few hundred KB of JSON; 4 MiB leaves room and bounds memory per request. */
        public static final long DEFAULT_MAX_BODY_BYTES = 4L * 1024 * 1024;

        /**
         * A client on a poor mobile link still sends tens of KB a second; one that sends less than 1 KiB a
         * second is holding a connection, not uploading.
         */
        public static final long DEFAULT_MIN_BODY_BYTES_PER_SECOND = 1024;

        /** How much of a body answered early the server reads and discards, as a multiple of the largest body it accepts. */
        static final int LINGER_BODIES = 4;

        public Limits {
            if (maxBodyBytes < 1024) throw new IllegalArgumentException("maxBodyBytes must be at least 1 KiB");
            for (Duration d : new Duration[]{readTimeout, idleTimeout, writeTimeout}) {
                if (d.isNegative() || d.isZero()) throw new IllegalArgumentException("timeouts must be positive");
            }
            if (maxConnections < 1) throw new IllegalArgumentException("maxConnections must be at least 1");
            if (minBodyBytesPerSecond < 0) throw new IllegalArgumentException("the minimum body rate cannot be negative");
        }

        /** With the default minimum body rate. */
        public Limits(long maxBodyBytes, Duration readTimeout, Duration idleTimeout, Duration writeTimeout, int maxConnections) {
            this(maxBodyBytes, readTimeout, idleTimeout, writeTimeout, maxConnections, DEFAULT_MIN_BODY_BYTES_PER_SECOND);
        }

        public static Limits defaults() {
            return new Limits(DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(60),
                    Duration.ofSeconds(30), 1024, DEFAULT_MIN_BODY_BYTES_PER_SECOND);
        }

        /**
         * The most of a body answered early (a 413, a 401...) that is read and discarded before the connection
         * closes, so that a client sending it all before reading gets the answer: four times the largest
         * body the server accepts (the JSON limit or the 25 MiB of an audio upload).
         */
        public long lingerBytes() {
            return LINGER_BODIES * Math.max(maxBodyBytes, TranscriptionsEndpoint.MAX_UPLOAD_BYTES);
        }

        public Limits withMaxBodyBytes(long bytes) {
            return new Limits(bytes, readTimeout, idleTimeout, writeTimeout, maxConnections, minBodyBytesPerSecond);
        }

        public Limits withReadTimeout(Duration timeout) {
            return new Limits(maxBodyBytes, timeout, idleTimeout, writeTimeout, maxConnections, minBodyBytesPerSecond);
        }

        public Limits withIdleTimeout(Duration timeout) {
            return new Limits(maxBodyBytes, readTimeout, timeout, writeTimeout, maxConnections, minBodyBytesPerSecond);
        }

        public Limits withWriteTimeout(Duration timeout) {
            return new Limits(maxBodyBytes, readTimeout, idleTimeout, timeout, maxConnections, minBodyBytesPerSecond);
        }

        public Limits withMaxConnections(int max) {
            return new Limits(maxBodyBytes, readTimeout, idleTimeout, writeTimeout, max, minBodyBytesPerSecond);
        }

        /** @param bytesPerSecond 0 for no minimum */
        public Limits withMinBodyBytesPerSecond(long bytesPerSecond) {
            return new Limits(maxBodyBytes, readTimeout, idleTimeout, writeTimeout, maxConnections, bytesPerSecond);
        }
    }

    public ServerOptions(int maxInFlightPerModel, int capacityRetryAfterSeconds, int loadingRetryAfterSeconds,
                         Limits limits, boolean separateReasoning) {
        this(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, limits, separateReasoning,
                MemoryResponseStore.withDefaults());
    }

    public ServerOptions {
        java.util.Objects.requireNonNull(responses, "responses");
        if (maxInFlightPerModel < 1) throw new IllegalArgumentException("maxInFlightPerModel must be at least 1");
        if (capacityRetryAfterSeconds < 1 || loadingRetryAfterSeconds < 1) {
            throw new IllegalArgumentException("Retry-After must be at least 1 second");
        }
    }

    /** Thinking text apart from the content ({@code reasoning_content}), as by default. */
    public ServerOptions(int maxInFlightPerModel, int capacityRetryAfterSeconds, int loadingRetryAfterSeconds) {
        this(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, Limits.defaults(), true);
    }

    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_MAX_IN_FLIGHT_PER_MODEL, 1, DEFAULT_LOADING_RETRY_AFTER_SECONDS,
                Limits.defaults(), true);
    }

    public ServerOptions withMaxInFlightPerModel(int max) {
        return new ServerOptions(max, capacityRetryAfterSeconds, loadingRetryAfterSeconds, limits, separateReasoning,
                responses);
    }

    public ServerOptions withLimits(Limits newLimits) {
        return new ServerOptions(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, newLimits,
                separateReasoning, responses);
    }

    /** With {@code false}, thinking stays in {@code content} for every request. */
    public ServerOptions withSeparateReasoning(boolean separate) {
        return new ServerOptions(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, limits, separate,
                responses);
    }

    /** Responses kept in {@code store} (the database's table under {@code cloud}, a bounded memory under {@code serve}). */
    public ServerOptions withResponses(ResponseStore store) {
        return new ServerOptions(maxInFlightPerModel, capacityRetryAfterSeconds, loadingRetryAfterSeconds, limits,
                separateReasoning, store);
    }
}
