package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.server.openai.Usage;
import dev.inferd.server.openai.WireJson;

import java.util.List;

/** The JSON shapes of the Responses API that are not events: the response object, usage, item lists. */
public final class ResponseObjects {

    private ResponseObjects() {
    }

    /** A response in progress, with no output yet; the request's settings echoed as OpenAI echoes them. */
    public static ObjectNode inProgress(ResponsesRequest request, String id, long createdAt) {
        ObjectNode r = WireJson.mapper().createObjectNode();
        r.put("id", id);
        r.put("object", "response");
        r.put("created_at", createdAt);
        r.put("status", "in_progress");
        r.put("background", false);
        r.putNull("completed_at");
        r.putNull("error");
        r.putNull("incomplete_details");
        r.set("instructions", request.echo("instructions"));
        r.set("max_output_tokens", request.echo("max_output_tokens"));
        r.set("max_tool_calls", request.echo("max_tool_calls"));
        r.put("model", request.model());
        r.putArray("output");
        r.put("parallel_tool_calls", request.tools().chat().parallelCalls());
        r.set("previous_response_id", request.echo("previous_response_id"));
        r.set("prompt_cache_key", request.echo("prompt_cache_key"));
        ObjectNode reasoning = r.putObject("reasoning");
        reasoning.put("effort", request.reasoningEffort());
        reasoning.put("summary", request.reasoningSummary());
        r.set("safety_identifier", request.echo("safety_identifier"));
        r.put("service_tier", "default");
        r.put("store", request.store());
        r.put("temperature", request.temperature());
        ObjectNode text = r.putObject("text");
        JsonNode format = request.body().path("text").path("format");
        if (format.isObject()) {
            text.set("format", format.deepCopy());
        } else {
            text.putObject("format").put("type", "text");
        }
        text.put("verbosity", request.body().path("text").path("verbosity").asText("medium"));
        JsonNode choice = request.body().get("tool_choice");
        if (choice == null || choice.isNull()) {
            r.put("tool_choice", "auto");
        } else {
            r.set("tool_choice", choice.deepCopy());
        }
        JsonNode tools = request.body().get("tools");
        r.set("tools", tools == null || tools.isNull() ? WireJson.mapper().createArrayNode() : tools.deepCopy());
        r.put("top_logprobs", 0);
        r.put("top_p", request.topP());
        r.put("truncation", request.body().path("truncation").asText("disabled"));
        // usage comes with the end; user is a string when the request had one (neither is nullable)
        if (request.body().path("user").isTextual()) r.put("user", request.body().get("user").textValue());
        JsonNode metadata = request.body().get("metadata");
        r.set("metadata", metadata == null || metadata.isNull() ? WireJson.mapper().createObjectNode() : metadata.deepCopy());
        return r;
    }

    static ObjectNode usage(Usage usage, int reasoningTokens) {
        ObjectNode u = WireJson.mapper().createObjectNode();
        u.put("input_tokens", usage.promptTokens());
        u.putObject("input_tokens_details").put("cached_tokens", usage.promptTokensDetails().cachedTokens())
                .put("cache_write_tokens", 0);
        u.put("output_tokens", usage.completionTokens());
        u.putObject("output_tokens_details").put("reasoning_tokens", Math.min(reasoningTokens, usage.completionTokens()));
        u.put("total_tokens", usage.totalTokens());
        return u;
    }

    /** {@code GET /v1/responses/{id}/input_items}: a page of items, OpenAI's list shape. */
    public static ObjectNode itemList(List<JsonNode> page, boolean hasMore) {
        ObjectNode list = WireJson.mapper().createObjectNode();
        list.put("object", "list");
        ArrayNode data = list.putArray("data");
        page.forEach(data::add);
        if (page.isEmpty()) {
            list.putNull("first_id");
            list.putNull("last_id");
        } else {
            list.put("first_id", page.getFirst().path("id").asText());
            list.put("last_id", page.getLast().path("id").asText());
        }
        list.put("has_more", hasMore);
        return list;
    }

    /** {@code DELETE /v1/responses/{id}}. */
    public static ObjectNode deleted(String id) {
        ObjectNode d = WireJson.mapper().createObjectNode();
        d.put("id", id);
        d.put("object", "response");
        d.put("deleted", true);
        return d;
    }
}
