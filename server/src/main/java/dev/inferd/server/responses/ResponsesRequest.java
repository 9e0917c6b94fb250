package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.server.openai.ResponseFormat;

import java.util.List;

/**
 * A validated {@code POST /v1/responses} request.
 *
 * @param body            the request as sent, for the fields the response object echoes
 * @param input           the input items, normalized (content as part lists) and with ids
 * @param reasoningEffort {@code reasoning.effort}, or null
 * @param reasoningSummary {@code reasoning.summary} ({@code auto}, {@code concise}, {@code detailed}), or null for none
 * @param maxOutputTokens the cap on generated tokens, or null for all the room the context leaves
 */
public record ResponsesRequest(ObjectNode body, String model, List<ObjectNode> input, String instructions,
                               ResponseTools tools, ResponseFormat format, String reasoningEffort,
                               String reasoningSummary, Integer maxOutputTokens, float temperature, float topP,
                               boolean stream, boolean store, String previousResponseId) {

    public ResponsesRequest {
        input = List.copyOf(input);
    }

    /** A field of the request as sent, or JSON null. */
    public JsonNode echo(String field) {
        JsonNode v = body.get(field);
        return v == null ? NullNode.getInstance() : v;
    }
}
