package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.anthropic.AnthropicModelList;
import dev.inferd.server.metrics.ServerMetrics;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import dev.inferd.server.openai.ModelList;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;

/**
 * Every request comes through here: one place that knows the routes (so an unknown path is a 404
 * and a wrong method a 405, both in OpenAI's error shape), stamps {@code x-request-id}, and turns
 * any failure into an error body, and records every request in the metrics. Model ids may contain {@code /} and
 * {@code :}, so {@code /v1/models/{id}} takes the whole rest of the path.
 */
final class ApiRouter {

    static final String REQUEST_ID = "x-request-id";
    private static final System.Logger LOG = System.getLogger(ApiRouter.class.getName());
    private static final String MODELS = "/v1/models";
    private static final String METRICS = "/metrics";
    private static final String HEALTH = "/health";
    private static final String READY = "/ready";
    private static final String TRANSCRIPTIONS = "/v1/audio/transcriptions";
    private static final String TRANSLATIONS = "/v1/audio/translations";
    private static final String MESSAGES = WireProtocol.MESSAGES;
    private static final String COUNT_TOKENS = MESSAGES + "/count_tokens";
    /** Sent by Anthropic's SDKs with every request; {@code GET /v1/models} then answers in Anthropic's shape. */
    private static final String ANTHROPIC_VERSION = "anthropic-version";

    /** The status recorded for a request whose client left before its response (nginx's convention). */
    static final int CLIENT_CLOSED = 499;

    private final ModelRegistry models;
    private final ServerMetrics metrics;
    private final ChatCompletionsEndpoint chat;
    private final CompletionsEndpoint completions;
    private final MessagesEndpoint messages;
    private final ResponsesEndpoint responses;
    private final SpeechModels speech;
    private final TranscriptionsEndpoint transcriptions;
    private final Upstream upstream;
    private final Readiness readiness;
    private final long maxBody;

    ApiRouter(ModelRegistry models, ServerMetrics metrics, ServerOptions options, String systemFingerprint) {
        this(models, new SpeechModels(), metrics, options, systemFingerprint);
    }

    ApiRouter(ModelRegistry models, SpeechModels speech, ServerMetrics metrics, ServerOptions options, String systemFingerprint) {
        this(models, speech, metrics, options, systemFingerprint, null, Readiness.of(models));
    }

    /**
     * @param upstream serves the model routes elsewhere (a gateway's workers), or null to serve them here
     * @param readiness what {@code GET /ready} reports
     */
    ApiRouter(ModelRegistry models, SpeechModels speech, ServerMetrics metrics, ServerOptions options, String systemFingerprint,
              Upstream upstream, Readiness readiness) {
        this.upstream = upstream;
        this.readiness = readiness;
        this.models = models;
        this.speech = speech;
        this.transcriptions = new TranscriptionsEndpoint(models, speech);
        this.metrics = metrics;
        ModelGate gate = new ModelGate(models, metrics, options);
        this.maxBody = options.limits().maxBodyBytes();
        this.chat = new ChatCompletionsEndpoint(gate, systemFingerprint, maxBody, options.separateReasoning());
        this.completions = new CompletionsEndpoint(gate, systemFingerprint, maxBody);
        this.messages = new MessagesEndpoint(gate, maxBody, options.separateReasoning());
        this.responses = new ResponsesEndpoint(gate, maxBody, options.separateReasoning(), options.responses());
    }

    void handle(ServerRequest request, ServerResponse response) {
        long started = System.nanoTime();
        metrics.requestStarted();
        String requestId = request.id();
        String method = request.method();
        String path = request.path();
        AccessLog.Entry entry = new AccessLog.Entry();
        int status = ScopedValue.where(AccessLog.CURRENT, entry).call(() -> serve(request, response, requestId, method, path));
        String route = routeOf(path);
        String methodLabel = methodLabel(method);
        metrics.requestFinished(route, methodLabel, status, System.nanoTime() - started);
        AccessLog.write(requestId, methodLabel, route, status, entry, System.nanoTime() - started);
        RequestHook.of(request).finished(status);
    }

    /** Serves one request; returns the status it ended with, 499 for a client that left first. */
    private int serve(ServerRequest request, ServerResponse response, String requestId, String method, String path) {
        try {
            route(method, path, request, response);
            return response.status();
        } catch (ApiError e) {
            if (e.status() == 429 || e.status() == 503) metrics.rejected(e.status(), e.reason());
            if (!response.isSent()) JsonExchange.sendError(response, e, WireProtocol.of(path));
            return response.status();
        } catch (ClientGoneException e) {
            // A client's departure is its own business: one debug line, no trace.
            LOG.log(Level.DEBUG, "request " + requestId + ": client left during " + method + " " + routeOf(path));
            return CLIENT_CLOSED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(response, requestId, method, path, e);
        } catch (Throwable e) {
            return fail(response, requestId, method, path, e);
        }
    }

    /** Methods as metric labels: the ones this API uses, every other string under one label. */
    static String methodLabel(String method) {
        return switch (method) {
            case "GET", "POST", "HEAD", "DELETE" -> method;
            default -> "OTHER";
        };
    }

    /** The route's template, so that metrics have one series per route, not per path a client made up. */
    static String routeOf(String path) {
        return switch (path) {
            case MODELS, "/v1/chat/completions", "/v1/completions", ResponsesEndpoint.PATH, METRICS, HEALTH, READY, TRANSCRIPTIONS,
                 TRANSLATIONS, MESSAGES, COUNT_TOKENS -> path;
            default -> {
                if (path.startsWith(MODELS + "/")) yield MODELS + "/{id}";
                if (path.startsWith(ResponsesEndpoint.PATH + "/")) {
                    yield path.endsWith("/input_items") ? ResponsesEndpoint.PATH + "/{id}/input_items"
                            : ResponsesEndpoint.PATH + "/{id}";
                }
                yield "unmatched";
            }
        };
    }

    private void route(String method, String path, ServerRequest request, ServerResponse response)
            throws InterruptedException {
        checkTransferCoding(request);
        switch (path) {
            case HEALTH -> {
                allow(method, path, "GET", response);
                sendGet(method, response, JsonExchange.JSON, "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
            }
            case READY -> {
                allow(method, path, "GET", response);
                String why = notReady();
                if (why != null) {
                    response.status(503);
                    response.header("Content-Type", JsonExchange.JSON);
                    byte[] body = WireJson.bytes(java.util.Map.of("status", "not ready", "reason", why));
                    if ("HEAD".equals(method)) {
                        response.header("Content-Length", Integer.toString(body.length));
                        response.send();
                    } else {
                        response.send(body);
                    }
                } else {
                    sendGet(method, response, JsonExchange.JSON, "{\"status\":\"ready\"}".getBytes(StandardCharsets.UTF_8));
                }
            }
            case METRICS -> {
                allow(method, path, "GET", response);
                metrics.bindEngineStats(models.engineStats());
                sendGet(method, response, ServerMetrics.CONTENT_TYPE, metrics.scrape().getBytes(StandardCharsets.UTF_8));
            }
            case MODELS -> {
                allow(method, path, "GET", response);
                var all = new java.util.ArrayList<>(models.list());
                all.addAll(speech.list());
                Object list = request.header(ANTHROPIC_VERSION) != null ? AnthropicModelList.of(all) : ModelList.of(all);
                sendGet(method, response, JsonExchange.JSON, WireJson.bytes(list));
            }
            case TRANSCRIPTIONS, TRANSLATIONS -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    String boundary = TranscriptionsEndpoint.checkUpload(request);
                    try (ClientWatch client = ClientWatch.of(request)) {
                        upstream.forwardUpload(path, request, boundary, TranscriptionsEndpoint.MAX_UPLOAD_BYTES, response,
                                client);
                    }
                    return;
                }
                transcriptions.handle(request, response, ClientWatch.of(request), path.equals(TRANSLATIONS));
            }
            case "/v1/chat/completions" -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    forward(path, request, JsonExchange.readBody(request, maxBody), null, response);
                    return;
                }
                try (ClientWatch client = ClientWatch.of(request)) {
                    chat.handle(request, response, client);
                }
            }
            case MESSAGES -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    forward(path, request, JsonExchange.readBody(request, maxBody), null, response);
                    return;
                }
                try (ClientWatch client = ClientWatch.of(request)) {
                    messages.handle(request, response, client);
                }
            }
            case COUNT_TOKENS -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    forward(path, request, JsonExchange.readBody(request, maxBody), null, response);
                    return;
                }
                messages.countTokens(request, response);
            }
            case "/v1/completions" -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    forward(path, request, JsonExchange.readBody(request, maxBody), null, response);
                    return;
                }
                try (ClientWatch client = ClientWatch.of(request)) {
                    completions.handle(request, response, client);
                }
            }
            case ResponsesEndpoint.PATH -> {
                allow(method, path, "POST", response);
                if (upstream != null) {
                    var body = JsonExchange.readBody(request, maxBody);
                    forward(path, request, body, responses.conversationKey(request, body), response);
                    return;
                }
                try (ClientWatch client = ClientWatch.of(request)) {
                    responses.create(request, response, client);
                }
            }
            default -> {
                if (path.startsWith(ResponsesEndpoint.PATH + "/")) {
                    keptResponse(method, path.substring(ResponsesEndpoint.PATH.length() + 1), request, response);
                } else if (path.startsWith(MODELS + "/") && path.length() > MODELS.length() + 1) {
                    allow(method, path, "GET", response);
                    var model = models.describe(path.substring(MODELS.length() + 1));
                    Object body = request.header(ANTHROPIC_VERSION) != null ? AnthropicModelList.Model.of(model) : model;
                    sendGet(method, response, JsonExchange.JSON, WireJson.bytes(body));
                } else {
                    throw ApiError.unknownUrl(method, path);
                }
            }
        }
    }

    /** A model route handed to the upstream, the client watched meanwhile: its departure stops the work there. */
    private void forward(String path, ServerRequest request, JsonNode body, String affinity,
                         ServerResponse response) throws InterruptedException {
        try (ClientWatch client = ClientWatch.of(request)) {
            upstream.forward(path, request, body, affinity, response, client);
        }
    }

    /**
     * {@code /v1/responses/{id}} (GET, DELETE) and {@code /v1/responses/{id}/input_items} (GET): answered here also on a
     * gateway, whose store is the database its workers keep responses in.
     */
    private void keptResponse(String method, String rest, ServerRequest request, ServerResponse response) {
        String path = ResponsesEndpoint.PATH + "/" + rest;
        String[] parts = rest.split("/", -1);
        if (parts.length == 2 && parts[1].equals("input_items") && !parts[0].isEmpty()) {
            allow(method, path, "GET", response);
            responses.inputItems(parts[0], request, response);
        } else if (parts.length == 1 && !parts[0].isEmpty()) {
            if ("DELETE".equals(method)) {
                responses.delete(parts[0], request, response);
            } else if ("GET".equals(method)) {
                responses.get(parts[0], request, response);
            } else {
                response.header("Allow", "GET, DELETE");
                throw ApiError.methodNotAllowed(method, path, "GET, DELETE");
            }
        } else {
            throw ApiError.unknownUrl(method, path);
        }
    }

    private String notReady() {
        try {
            return readiness.notReady();
        } catch (RuntimeException e) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }

    /**
     * Only chunked framing is implemented for request bodies; a body under any other transfer coding
     * ({@code gzip, chunked}) cannot be read as sent.
     */
    private static void checkTransferCoding(ServerRequest request) {
        for (String value : request.headerValues("Transfer-Encoding")) {
            for (String coding : value.split(",")) {
                String c = coding.strip();
                if (!c.isEmpty() && !c.equalsIgnoreCase("chunked")) {
                    throw new ApiError(400, ApiError.INVALID_REQUEST,
                            "Transfer-Encoding " + c + " is not supported: send the body with Content-Length or chunked.",
                            null, "unsupported_transfer_encoding");
                }
            }
        }
    }

    /** GET routes answer HEAD too (RFC 9110), with the headers GET would send and no body. */
    private static void allow(String method, String path, String allowed, ServerResponse response) {
        boolean headOnGet = "GET".equals(allowed) && "HEAD".equals(method);
        if (!allowed.equals(method) && !headOnGet) {
            String allow = "GET".equals(allowed) ? "GET, HEAD" : allowed;
            response.header("Allow", allow);
            throw ApiError.methodNotAllowed(method, path, allow);
        }
    }

    private static void sendGet(String method, ServerResponse response, String contentType, byte[] body) {
        response.status(200);
        response.header("Content-Type", contentType);
        if ("HEAD".equals(method)) {
            response.header("Content-Length", Integer.toString(body.length));
            response.send();
        } else {
            response.send(body);
        }
    }

    /** Logs and answers a server fault; returns the status the request ended with. */
    private static int fail(ServerResponse response, String requestId, String method, String path, Throwable e) {
        LOG.log(Level.ERROR, "request " + requestId + " (" + method + " " + path + ") failed", e);
        if (!response.isSent()) {
            try {
                JsonExchange.sendError(response, ApiError.internal(requestId), WireProtocol.of(path));
            } catch (RuntimeException again) {
                LOG.log(Level.DEBUG, "could not send the error response for " + requestId, again);
            }
        }
        return response.status();
    }
}
