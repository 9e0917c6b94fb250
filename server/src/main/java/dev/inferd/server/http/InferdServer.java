package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.ServerMetrics;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.service.registry.GlobalServiceRegistry;
import io.helidon.service.registry.ServiceRegistryConfig;
import io.helidon.service.registry.ServiceRegistryManager;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.HttpRouting;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.Map;

/**
 * The OpenAI-compatible HTTP server over a set of loaded models. Helidon runs every request on its
 * own virtual thread, so a handler may block on the engine for as long as a generation takes.
 *
 * <pre>{@code
 * InferdServer server = InferdServer.start("127.0.0.1", 8000, Map.of("stories260K", generator));
 * ...
 * server.stop();
 * }</pre>
 */
public final class InferdServer implements AutoCloseable {
    private static final String PORT_UNAVAILABLE = "the port is in use or not allowed";

    private final WebServer webServer;
    private final ServerMetrics metrics;

    private InferdServer(WebServer webServer, ServerMetrics metrics) {
        this.webServer = webServer;
        this.metrics = metrics;
    }

    /**
     * Starts listening with the default {@link ServerOptions} and returns once the port is bound.
     *
     * @param port 0 picks a free port (see {@link #port()})
     * @param models model id (as clients name it in {@code model}) to generator, in listing order
     */
    public static InferdServer start(String host, int port, Map<String, TextGenerator> models) {
        return start(host, port, new ModelRegistry(models), ServerOptions.defaults());
    }

    /**
     * Starts listening and returns once the port is bound. The registry may still change: models
     * registered as loading answer 503 until they are marked ready.
     *
     * @param port 0 picks a free port (see {@link #port()})
     * @throws IllegalStateException when the port cannot be bound
     */
    public static InferdServer start(String host, int port, ModelRegistry models, ServerOptions options) {
        if (models.isEmpty()) throw new IllegalArgumentException("at least one model is needed");
        return start(host, port, models, new SpeechModels(), options, null);
    }

    /** As {@link #start(String, int, ModelRegistry, ServerOptions)}, with speech-to-text models beside the chat models. */
    public static InferdServer start(String host, int port, ModelRegistry models, SpeechModels speech, ServerOptions options) {
        if (models.isEmpty() && speech.isEmpty()) throw new IllegalArgumentException("at least one model is needed");
        return start(host, port, models, speech, options, null);
    }

    /**
     * Starts listening with {@code front} ahead of the API's routes: a filter that sees every request first
     * (the hosted gateway: keys, limits, metering, its own pages) and passes on the ones the API answers. The
     * registries may be empty, to be filled while the server runs.
     *
     * @param front null for none
     * @throws IllegalStateException when the port cannot be bound
     */
    public static InferdServer start(String host, int port, ModelRegistry models, SpeechModels speech,
                                     ServerOptions options, Filter front) {
        requireFreePort(host, port);
        models.loadingRetryAfterSeconds(options.loadingRetryAfterSeconds());
        useExplicitServicesOnly();
        ServerMetrics metrics = new ServerMetrics();
        ApiRouter router = new ApiRouter(models, speech, metrics, options, systemFingerprint());
        ServerOptions.Limits limits = options.limits();
        WebServer server = WebServer.builder()
                .host(host)
                .port(port)
                // Without tcpNoDelay, Nagle's algorithm holds the first small SSE write back for up to 40 ms.
                // The read timeout bounds the wait for each part of a request's headers and body.
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).readTimeout(limits.readTimeout()).build())
                .maxTcpConnections(limits.maxConnections())
                .idleConnectionTimeout(limits.idleTimeout())
                .idleConnectionPeriod(Duration.ofSeconds(Math.clamp(limits.idleTimeout().toSeconds() / 4, 1, 60)))
                // Helidon's default too, said here since restarts depend on it: a server that stopped leaves its ends
                // of the connections it closed in TIME_WAIT for a minute, and without it the next bind fails
                .putListenerSocketOption(StandardSocketOptions.SO_REUSEADDR, true)
                // A backstop above the limits JsonExchange and the audio uploads enforce with a proper error body.
                .maxPayloadSize(Math.max(limits.maxBodyBytes(), TranscriptionsEndpoint.MAX_UPLOAD_BYTES) + 1024 * 1024)
                .directHandlers(errorsAsJson(limits.maxBodyBytes()))
                .shutdownHook(false)
                .routing(routing(router, front))
                .build()
                .start();
        // Helidon logs a port it cannot bind and returns a server that is not running (port -1)
        if (!server.isRunning() || server.port() < 0) {
            server.stop();
            throw new IllegalStateException(PORT_UNAVAILABLE + " (another server on it?)");
        }
        return new InferdServer(server, metrics);
    }

    private static HttpRouting.Builder routing(ApiRouter router, Filter front) {
        HttpRouting.Builder routing = HttpRouting.builder();
        if (front != null) routing.addFilter(front);
        return routing.any(router);
    }

    /**
     * Binds the port once before Helidon does, and lets it go: Helidon logs a port it cannot bind as SEVERE with
     * a stack trace, which {@code serve} printed above its own one-line message. A listener that never accepted
     * leaves nothing in TIME_WAIT. Another server that takes the port in between is still caught after the start.
     */
    private static void requireFreePort(String host, int port) {
        if (port == 0) return;
        try (var probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as the server's listener, so that connections in TIME_WAIT do not count
            probe.bind(new InetSocketAddress(host, port));
        } catch (BindException e) {
            throw new IllegalStateException(PORT_UNAVAILABLE + " (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            // an unresolvable host or the like: Helidon's start says it
        }
    }

    /**
     * Helidon's global service registry without discovery, before anything of Helidon asks for it.
     * Discovery reads every module's service metadata and, through it, sets up Helidon's config system
     * over {@code application.*} files and environment variables, which this server does not use:
     * about 0.3 s of every start. What the server uses is wired in code here (routing, socket options,
     * error handlers); the server and app test suites pass with discovery off.
     */
    private static synchronized void useExplicitServicesOnly() {
        if (GlobalServiceRegistry.configured()) return;
        GlobalServiceRegistry.registry(ServiceRegistryManager.create(ServiceRegistryConfig.builder()
                .discoverServices(false)
                .discoverServicesFromServiceLoader(false)
                .build()).registry());
    }

    /** The bound port (the real one when started with port 0). */
    public int port() {
        return webServer.port();
    }

    /** The registry behind {@code GET /metrics}, for callers that add meters of their own. */
    public MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    public void stop() {
        webServer.stop();
    }

    @Override
    public void close() {
        stop();
    }

    /** "inferd-<version>", from the jar's manifest when there is one. */
    static String systemFingerprint() {
        String version = InferdServer.class.getPackage().getImplementationVersion();
        return "inferd-" + (version == null ? "dev" : version);
    }

    /**
     * Errors Helidon answers itself, before routing (a malformed request line, a body over the
     * size limit), still get the OpenAI error body and a request id.
     */
    private static DirectHandlers errorsAsJson(long maxBodyBytes) {
        DirectHandler json = (request, eventType, reported, headers, message) -> {
            // Helidon answers a transfer coding it does not know with 501; it is the client's request that is wrong.
            Status status = reported.code() == 501 ? Status.BAD_REQUEST_400 : reported;
            int code = status.code();
            String type = code >= 500 ? ApiError.INTERNAL : ApiError.INVALID_REQUEST;
            String text = code == 413 ? "The request body is larger than the limit of " + maxBodyBytes + " bytes."
                    : reported.code() == 501 ? "Transfer-Encoding other than chunked is not supported."
                    : describe(request, status.reasonPhrase(), message);
            byte[] body = WireJson.bytes(new ApiError(code, type, text, null, null).body());
            return DirectHandler.TransportResponse.builder()
                    .status(status)
                    .headers(headers)
                    .header(HeaderNames.CONTENT_TYPE, "application/json")
                    .header(ApiRouter.REQUEST_ID, Ids.requestId())
                    .entity(body)
                    .build();
        };
        DirectHandlers.Builder builder = DirectHandlers.builder();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) builder.addHandler(type, json);
        return builder.build();
    }

    /**
     * The message for a request Helidon refused before routing. A compressed body is one such request,
     * and Helidon reports it with no message at all ("Bad Request: null").
     */
    private static String describe(DirectHandler.TransportRequest request, String reason, String message) {
        String encoding = request.headers().first(HeaderNames.CONTENT_ENCODING).orElse("identity");
        if (!encoding.equalsIgnoreCase("identity")) {
            return "Content-Encoding " + encoding + " is not supported: send the request body uncompressed.";
        }
        return message == null || message.isBlank() ? reason + ": the request could not be read." : reason + ": " + message;
    }
}
