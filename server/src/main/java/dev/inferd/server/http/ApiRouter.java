package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelList;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.lang.System.Logger.Level;

/**
 * Every request comes through here: one place that knows the routes (so an unknown path is a 404
 * and a wrong method a 405, both in OpenAI's error shape), stamps {@code x-request-id}, and turns
 * any failure into an error body. Model ids may contain {@code /} and {@code :}, which Helidon's
 * path patterns would split, so {@code /v1/models/{id}} takes the whole rest of the path.
 */
final class ApiRouter implements Handler {

    static final HeaderName REQUEST_ID = HeaderNames.create("x-request-id");
    private static final System.Logger LOG = System.getLogger(ApiRouter.class.getName());
    private static final String MODELS = "/v1/models";

    private final ModelRegistry models;
    private final ChatCompletionsEndpoint chat;
    private final CompletionsEndpoint completions;

    ApiRouter(ModelRegistry models, String systemFingerprint) {
        this.models = models;
        this.chat = new ChatCompletionsEndpoint(models, systemFingerprint);
        this.completions = new CompletionsEndpoint(models, systemFingerprint);
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        String requestId = Ids.requestId();
        response.header(REQUEST_ID, requestId);
        String method = request.prologue().method().text();
        String path = request.path().path();
        try {
            route(method, path, request, response);
        } catch (ApiError e) {
            if (!response.isSent()) JsonExchange.sendError(response, e);
        } catch (ClientGoneException e) {
            LOG.log(Level.DEBUG, "client left during " + method + " " + path);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(response, requestId, method, path, e);
        } catch (Throwable e) {
            fail(response, requestId, method, path, e);
        }
    }

    private void route(String method, String path, ServerRequest request, ServerResponse response)
            throws InterruptedException {
        switch (path) {
            case MODELS -> {
                allow(method, path, "GET", response);
                JsonExchange.send(response, 200, ModelList.of(models.list()));
            }
            case "/v1/chat/completions" -> {
                allow(method, path, "POST", response);
                chat.handle(request, response);
            }
            case "/v1/completions" -> {
                allow(method, path, "POST", response);
                completions.handle(request, response);
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

    private static void fail(ServerResponse response, String requestId, String method, String path, Throwable e) {
        LOG.log(Level.ERROR, "request " + requestId + " (" + method + " " + path + ") failed", e);
        if (!response.isSent()) {
            try {
                JsonExchange.sendError(response, ApiError.internal(requestId));
            } catch (RuntimeException again) {
                LOG.log(Level.DEBUG, "could not send the error response for " + requestId, again);
            }
        }
    }
}
