package dev.inferd.app;

import dev.inferd.server.http.ServerOptions;
import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * The options of a listening server, the same for {@code serve}, {@code cloud}, {@code worker}, {@code gateway}
 * and {@code bench-serve --serve-model}: where it listens, how much it computes at once, and the bounds that keep
 * clients from holding it.
 */
final class ServerOptionsMixin {

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", paramLabel = "N",
            description = "port to listen on (default: 8000; bench-serve: a free port; 0: a free port)")
    Integer port;

    @Option(names = "--threads", defaultValue = "0", paramLabel = "N", description = "compute threads (default: all cores)")
    int threads;

    @Option(names = "--parallel", defaultValue = "0", paramLabel = "N",
            description = "sequences decoded together per model (default: 8); more requests queue")
    int parallel;

    @Option(names = "--max-queued", defaultValue = "0", paramLabel = "N",
            description = "requests that may wait per model before the server answers 429 (default: 64)")
    int maxQueued;

    @Option(names = "--max-body", defaultValue = "4m", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "largest JSON request body (chat, completions), e.g. 4m or 512k; larger ones are a 413 (default: ${DEFAULT-VALUE})")
    long maxBody;

    @Option(names = "--read-timeout", defaultValue = "30s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "time a request's headers have to arrive in, in all, and the longest wait for the next "
                    + "bytes of its body (default: ${DEFAULT-VALUE})")
    Duration readTimeout;

    @Option(names = "--min-body-rate", defaultValue = "1k", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "slowest a request body may arrive, in bytes a second on average after its first 5 seconds, "
                    + "e.g. 1k; a slower one is a 400 and its connection is closed; 0 for no minimum (default: ${DEFAULT-VALUE})")
    long minBodyRate;

    @Option(names = "--idle-timeout", defaultValue = "60s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how long a keep-alive connection may sit idle between requests (default: ${DEFAULT-VALUE})")
    Duration idleTimeout;

    @Option(names = "--write-timeout", defaultValue = "30s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how long a write to a client that stopped reading may block before its generation is "
                    + "cancelled and its slot freed (default: ${DEFAULT-VALUE})")
    Duration writeTimeout;

    @Option(names = "--max-connections", defaultValue = "1024", paramLabel = "N",
            description = "open connections at once (default: ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(names = "--no-reasoning-split", description = "keep a thinking model's <think> text in 'content' "
            + "instead of 'reasoning_content'")
    boolean noReasoningSplit;

    /** The port given, else {@code fallback}. */
    int port(int fallback) {
        return port == null ? fallback : port;
    }

    /** What is wrong with the numbers given, or null. */
    String problem() {
        if (port != null && (port < 0 || port > 65535)) return "--port must be between 0 and 65535";
        if (threads < 0 || parallel < 0 || maxQueued < 0) return "--threads, --parallel and --max-queued must be 0 or more";
        if (maxConnections < 1) return "--max-connections must be at least 1";
        if (maxBody < 1024) return "--max-body must be at least 1k";
        if (readTimeout.isZero() || idleTimeout.isZero() || writeTimeout.isZero()) {
            return "--read-timeout, --idle-timeout and --write-timeout must be more than 0";
        }
        return null;
    }

    /** The server's options; call {@link #problem()} first. */
    ServerOptions serverOptions() {
        return ServerOptions.defaults()
                .withLimits(new ServerOptions.Limits(maxBody, readTimeout, idleTimeout, writeTimeout, maxConnections, minBodyRate))
                .withSeparateReasoning(!noReasoningSplit);
    }

    /** The host as it goes into a URL (an IPv6 address in brackets). */
    String urlHost() {
        return host.contains(":") ? "[" + host + "]" : host;
    }
}
