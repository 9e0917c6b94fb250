package dev.inferd.server.http;

import dev.inferd.server.metrics.ServerMetrics;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelList;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;

/**
 * Every request comes through here: one place that knows the routes (so an unknown path is a 404
 * and a wrong method a 405, both in OpenAI's error shape), stamps {@code x-request-id}, and turns
 * any failure into an error body, and records every request in the metrics. Model ids may contain {@code /} and {@code :}, which Helidon's
 * path patterns would split, so {@code /v1/models/{id}} takes the whole rest of the path.
 */
final class ApiRouter implements Handler {

    static final HeaderName REQUEST_ID = HeaderNames.create("x-request-id");
    private static final System.Logger LOG = System.getLogger(ApiRouter.class.getName());
    private static final String MODELS = "/v1/models";
    private static final String METRICS = "/metrics";

    /** The status recorded for a request whose client left before its response (nginx's convention). */
    static final int CLIENT_CLOSED = 499;

    private final ModelRegistry models;
    private final ServerMetrics metrics;
    private final ChatCompletionsEndpoint chat;
    private final CompletionsEndpoint completions;

    ApiRouter(ModelRegistry models, ServerMetrics metrics, ServerOptions options, String systemFingerprint) {
        this.models = models;
        this.metrics = metrics;
        ModelGate gate = new ModelGate(models, metrics, options);
        this.chat = new ChatCompletionsEndpoint(gate, systemFingerprint, options.separateReasoning());
        this.completions = new CompletionsEndpoint(gate, systemFingerprint);
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        long started = System.nanoTime();
        metrics.requestStarted();
        String requestId = Ids.requestId();
        response.header(REQUEST_ID, requestId);
        String method = request.prologue().method().text();
        String path = request.path().path();
        int status;
        try {
            route(method, path, request, response);
            status = response.status().code();
        } catch (ApiError e) {
            if (e.status() == 429 || e.status() == 503) metrics.rejected(e.status(), e.reason());
            if (!response.isSent()) JsonExchange.sendError(response, e);
            status = response.status().code();
        } catch (ClientGoneException e) {
            LOG.log(Level.DEBUG, "client left during " + method + " " + path);
            status = CLIENT_CLOSED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = fail(response, requestId, method, path, e);
        } catch (Throwable e) {
            status = fail(response, requestId, method, path, e);
        }
        metrics.requestFinished(routeOf(path), method, status, System.nanoTime() - started);
    }

    /** The route's template, so that metrics have one series per route, not per path a client made up. */
    static String routeOf(String path) {
        return switch (path) {
            case MODELS, "/v1/chat/completions", "/v1/completions", METRICS -> path;
            default -> path.startsWith(MODELS + "/") ? MODELS + "/{id}" : "unmatched";
        };
    }

    private void route(String method, String path, ServerRequest request, ServerResponse response)
            throws InterruptedException {
        switch (path) {
            case METRICS -> {
                allow(method, path, "GET", response);
                metrics.bindEngineStats(models.engineStats());
                response.status(200);
                response.header(HeaderNames.CONTENT_TYPE, ServerMetrics.CONTENT_TYPE);
                response.send(metrics.scrape().getBytes(StandardCharsets.UTF_8));
            }
            case MODELS -> {
                allow(method, path, "GET", response);
                JsonExchange.send(response, 200, ModelList.of(models.list()));
            }
            case "/v1/chat/completions" -> {
                allow(method, path, "POST", response);
                try (ClientWatch client = ClientWatch.of(request)) {
                    chat.handle(request, response, client);
                }
            }
            case "/v1/completions" -> {
                allow(method, path, "POST", response);
                try (ClientWatch client = ClientWatch.of(request)) {
                    completions.handle(request, response, client);
                }
            }
            default -> {
                if (path.startsWith(MODELS + "/") && path.length() > MODELS.length() + 1) {
                    allow(method, path, "GET", response);
                    JsonExchange.send(response, 200, models.describe(path.substring(MODELS.length() + 1)));
                } else {
                    throw ApiError.unknownUrl(method, path);
                }
            }
        }
    }

    private static void allow(String method, String path, String allowed, ServerResponse response) {
        if (!allowed.equals(method)) {
            response.header(HeaderNames.ALLOW, allowed);
            throw ApiError.methodNotAllowed(method, path, allowed);
        }
    }

    /** Logs and answers a server fault; returns the status the request ended with. */
    private static int fail(ServerResponse response, String requestId, String method, String path, Throwable e) {
        LOG.log(Level.ERROR, "request " + requestId + " (" + method + " " + path + ") failed", e);
        if (!response.isSent()) {
            try {
                JsonExchange.sendError(response, ApiError.internal(requestId));
            } catch (RuntimeException again) {
                LOG.log(Level.DEBUG, "could not send the error response for " + requestId, again);
            }
        }
        return response.status().code();
    }
}
