package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Serves the model routes elsewhere: the gateway of a deployment with workers hands each request that runs a model
 * ({@code /v1/chat/completions}, {@code /v1/completions}) to a worker and relays its answer. The request's body has
 * been read and checked as JSON by then, within the server's body limit.
 */
@FunctionalInterface
public interface Upstream {
    void forward(String path, ServerRequest request, JsonNode body, ServerResponse response) throws InterruptedException;
}
