package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Serves the model routes elsewhere: the gateway of a deployment with workers hands each request that runs a model
 * (chat and legacy completions, Responses, Messages and their token count, audio) to a worker and relays its
 * answer. Everything else (keys, limits, usage, kept responses) stays with the gateway.
 */
public interface Upstream {

    /**
     * A JSON request, its body read and checked as JSON within the server's body limit by then.
     *
     * @param affinity the conversation's key when the route knows it better than the body shows (a Responses
     *                 follow-up's conversation), else null
     * @param client     the client's departure, which stops the work elsewhere
     */
    void forward(String path, ServerRequest request, JsonNode body, String affinity, ServerResponse response,
                 ClientDeparture client) throws InterruptedException;

    /**
     * A {@code multipart/form-data} upload (audio) of at most {@code maxBytes}, sent on to a worker as it arrives
     * once the field that names the model was read.
     */
    void forwardUpload(String path, ServerRequest request, String boundary, long maxBytes, ServerResponse response,
                       ClientDeparture client) throws InterruptedException;
}
