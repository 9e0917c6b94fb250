package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.ServerMetrics;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The OpenAI-compatible HTTP server over a set of loaded models, on Jetty's HTTP/1.1 server. Every
 * request runs on a virtual thread of its own, so a handler may block on the engine for as long as a
 * generation takes.
 *
 * <pre>{@code
 * InferdServer server = InferdServer.start("127.0.0.1", 8000, Map.of("stories260K", generator));
 * ...
 * server.stop();
 * }</pre>
 */
public final class InferdServer implements AutoCloseable {
    private static final String PORT_UNAVAILABLE = "the port is in use or not allowed";

    private final Server jetty;
    private final ServerConnector connector;
    private final ServerMetrics metrics;

    private InferdServer(Server jetty, ServerConnector connector, ServerMetrics metrics) {
        this.jetty = jetty;
        this.connector = connector;
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
                                     ServerOptions options, HttpFilter front) {
        models.loadingRetryAfterSeconds(options.loadingRetryAfterSeconds());
        ServerMetrics metrics = new ServerMetrics();
        ApiRouter router = new ApiRouter(models, speech, metrics, options, systemFingerprint());
        ServerOptions.Limits limits = options.limits();

        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("inferd-http");
        // Handlers block (on the engine, on a slow client): each request gets a virtual thread.
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("inferd-request-", 0).factory()));
        Server jetty = new Server(threads);
        jetty.setStopTimeout(0);

        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        // RFC 9110's case-sensitive methods, and nothing of the legacy leniencies
        http.setHttpCompliance(HttpCompliance.RFC9110);
        // Model ids contain '/', which clients encode as %2F in /v1/models/{id} (and '%' as %25).
        http.setUriCompliance(UriCompliance.DEFAULT.with("inferd", UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
                UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
        // A request's headers must arrive within the read timeout as a whole, not only byte by byte.
        ServerConnector connector = new ServerConnector(jetty, new HeaderDeadlineConnectionFactory(http, limits.readTimeout()));
        connector.setHost(host);
        connector.setPort(port);
        // Jetty's default too, said here since streaming depends on it: without it, Nagle's algorithm holds
        // the first small SSE write back for up to 40 ms.
        connector.setAcceptedTcpNoDelay(true);
        // Until a request is being handled, the idle timeout bounds the wait for its headers (see JettyAdapter).
        connector.setIdleTimeout(limits.readTimeout().toMillis());
        // A server that stopped leaves its ends of the connections it closed in TIME_WAIT for a minute;
        // without this the next bind fails.
        connector.setReuseAddress(true);
        jetty.addConnector(connector);
        jetty.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
        jetty.setErrorHandler(new JsonErrorHandler());
        jetty.setHandler(new JettyAdapter(router, front, limits));
        try {
            jetty.start();
        } catch (IOException e) {
            stopQuietly(jetty);
            throw new IllegalStateException(PORT_UNAVAILABLE + " (" + e.getMessage() + ")", e);
        } catch (Exception e) {
            stopQuietly(jetty);
            throw new IllegalStateException("the HTTP server did not start: " + e.getMessage(), e);
        }
        return new InferdServer(jetty, connector, metrics);
    }

    private static void stopQuietly(Server jetty) {
        try {
            jetty.stop();
        } catch (Exception e) {
            // it did not start; nothing is left to stop
        }
    }

    /** The bound port (the real one when started with port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The registry behind {@code GET /metrics}, for callers that add meters of their own. */
    public MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    public void stop() {
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP server did not stop cleanly", e);
        }
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
}
