package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Fields;
import dev.inferd.server.openai.ResponseFormat;
import dev.inferd.server.openai.StructuredOutputFields;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns a {@code POST /v1/responses} body into a {@link ResponsesRequest}, or a 400 that names the field.
 * Fields clients send by default that change nothing here ({@code include}, {@code prompt_cache_key},
 * {@code metadata}, {@code user}, {@code service_tier}, ...) are accepted; values this server cannot
 * honour are refused by name.
 */
public final class ResponsesRequestParser {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Set<String> EFFORTS = Set.of("none", "minimal", "low", "medium", "high", "xhigh");
    private static final Set<String> SUMMARIES = Set.of("auto", "concise", "detailed");

    private ResponsesRequestParser() {
    }

    public static ResponsesRequest parse(JsonNode body) {
        Fields f = Fields.ofBody(body);
        String model = f.requiredString("model");
        // A follow-up may send no new input (it continues from the kept response alone).
        List<ObjectNode> input = f.node("input").isPresent() || f.string("previous_response_id").isEmpty()
                ? input(f.required("input")) : List.of();
        String instructions = instructions(f);
        ResponseTools tools = ResponseTools.parse(f);
        ResponseFormat format = textFormat(f);
        String effort = null;
        String summary = null;
        JsonNode reasoning = f.node("reasoning").orElse(null);
        if (reasoning != null) {
            Fields r = Fields.ofObject(reasoning, "reasoning");
            effort = r.string("effort").orElse(null);
            if (effort != null && !EFFORTS.contains(effort)) {
                throw ApiError.invalid("reasoning.effort", "Invalid value for 'reasoning.effort': '" + effort
                        + "'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high' and 'xhigh'.");
            }
            summary = r.string("summary").or(() -> r.string("generate_summary")).orElse(null);
            if (summary != null && !SUMMARIES.contains(summary)) {
                throw ApiError.invalid("reasoning.summary", "Invalid value for 'reasoning.summary': '" + summary
                        + "'. Supported values are: 'auto', 'concise' and 'detailed'.");
            }
        }
        Integer maxOutputTokens = f.intValue("max_output_tokens", 1, Integer.MAX_VALUE).orElse(null);
        float temperature = f.number("temperature", 0, 2).orElse(1.0).floatValue();
        float topP = f.number("top_p", 0, 1).orElse(1.0).floatValue();
        boolean stream = f.bool("stream", false);
        boolean store = f.bool("store", true);
        String previous = f.string("previous_response_id").orElse(null);
        checkAccepted(f);
        return new ResponsesRequest((ObjectNode) body, model, input, instructions, tools, format, effort, summary,
                maxOutputTokens, temperature, topP, stream, store, previous);
    }

    /** Fields accepted for what they are, with the values this server can honour. */
    private static void checkAccepted(Fields f) {
        if (f.bool("background", false)) {
            throw ApiError.unsupported("background", "Background responses are not supported on this server.");
        }
        f.node("conversation").ifPresent(c -> {
            throw ApiError.unsupported("conversation",
                    "Conversations are not supported on this server; use 'previous_response_id'.");
        });
        f.node("prompt").ifPresent(p -> {
            throw ApiError.unsupported("prompt", "Prompt templates are not supported on this server.");
        });
        f.intValue("top_logprobs", 0, 20).filter(n -> n > 0).ifPresent(n -> {
            throw ApiError.unsupported("top_logprobs", "Log-probabilities are not supported on /v1/responses.");
        });
        f.string("truncation").ifPresent(t -> {
            if (!t.equals("auto") && !t.equals("disabled")) {
                throw ApiError.invalid("truncation", "Invalid value for 'truncation': '" + t
                        + "'. Supported values are: 'auto' and 'disabled'.");
            }
        });
        f.node("include").ifPresent(include -> {
            if (!include.isArray()) throw ApiError.invalidType("include", "an array", Fields.describe(include));
        });
        f.node("metadata").ifPresent(m -> {
            if (!m.isObject()) throw ApiError.invalidType("metadata", "an object", Fields.describe(m));
        });
        f.intValue("max_tool_calls", 1, Integer.MAX_VALUE);
        f.string("service_tier");
        f.string("user");
        f.string("safety_identifier");
        f.string("prompt_cache_key");
        f.node("stream_options").ifPresent(o -> Fields.ofObject(o, "stream_options"));
    }

    private static String instructions(Fields f) {
        JsonNode node = f.node("instructions").orElse(null);
        if (node == null) return null;
        if (node.isTextual()) return node.textValue();
        throw ApiError.invalidType("instructions", "a string", Fields.describe(node));
    }

    private static ResponseFormat textFormat(Fields f) {
        JsonNode text = f.node("text").orElse(null);
        if (text == null) return ResponseFormat.TEXT;
        Fields t = Fields.ofObject(text, "text");
        t.string("verbosity");
        JsonNode format = t.node("format").orElse(null);
        if (format == null) return ResponseFormat.TEXT;
        Fields ff = Fields.ofObject(format, "text.format");
        String type = ff.requiredString("type");
        return switch (type) {
            case "text" -> ResponseFormat.TEXT;
            case "json_object" -> new ResponseFormat.JsonObject();
            case "json_schema" -> {
                String name = ff.requiredString("name");
                StructuredOutputFields.checkName(name, "text.format.name");
                JsonNode schema = ff.required("schema");
                if (!schema.isObject() && !schema.isBoolean()) {
                    throw ApiError.invalidType("text.format.schema", "an object", Fields.describe(schema));
                }
                yield new ResponseFormat.JsonSchema(name, StructuredOutputFields.tree(schema), ff.bool("strict", false));
            }
            default -> throw ApiError.invalid("text.format.type", "Invalid value for 'text.format.type': '" + type
                    + "'. Supported values are: 'text', 'json_object' and 'json_schema'.");
        };
    }

    /** {@code input}: a string (one user message) or a list of items, normalized and given ids. */
    static List<ObjectNode> input(JsonNode node) {
        if (node.isTextual()) {
            return List.of(message("user", node.textValue()));
        }
        if (!node.isArray()) {
            throw ApiError.invalidType("input", "a string or an array of input items", Fields.describe(node));
        }
        List<ObjectNode> items = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            items.add(ResponseItems.normalize(node.get(i), "input[" + i + "]"));
        }
        return items;
    }

    static ObjectNode message(String role, String text) {
        ObjectNode item = JSON.objectNode();
        item.put("id", ResponseIds.next("msg"));
        item.put("type", "message");
        item.put("role", role);
        ArrayNode content = item.putArray("content");
        content.addObject().put("type", "assistant".equals(role) ? "output_text" : "input_text").put("text", text);
        item.put("status", "completed");
        return item;
    }
}
