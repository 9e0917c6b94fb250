package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.ToolCall;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Fields;
import dev.inferd.server.openai.WireJson;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Conversation items, as clients send them in {@code input} and as responses give them in
 * {@code output}: checked and normalized on the way in, and turned into the engine's messages.
 * Messages become turns; {@code function_call} and {@code custom_tool_call} items join the assistant
 * turn before them as its calls; their outputs become tool turns. Reasoning items and the calls of
 * hosted tools are kept in the conversation's record but not shown to the model.
 */
final class ResponseItems {

    private static final Set<String> ROLES = Set.of("user", "assistant", "system", "developer");
    /** Items of hosted tools and of server features this server has not: accepted, and not shown to the model. */
    private static final Set<String> IGNORED = Set.of("reasoning", "web_search_call", "file_search_call",
            "image_generation_call", "code_interpreter_call", "computer_call", "computer_call_output",
            "local_shell_call", "local_shell_call_output", "shell_call", "shell_call_output", "mcp_list_tools",
            "mcp_approval_request", "mcp_approval_response", "mcp_call", "apply_patch_call", "apply_patch_call_output",
            "tool_search_call", "tool_search_output", "compaction");

    private ResponseItems() {
    }

    /** One input item checked, its message content as a part list, an id given where it has none. */
    static ObjectNode normalize(JsonNode node, String path) {
        Fields f = Fields.ofObject(node, path);
        ObjectNode item = ((ObjectNode) node).deepCopy();
        String type = f.string("type").orElse(f.node("role").isPresent() ? "message" : null);
        if (type == null) throw ApiError.missing(path + ".type");
        item.put("type", type);
        switch (type) {
            case "message" -> {
                String role = f.requiredString("role");
                if (!ROLES.contains(role)) {
                    throw ApiError.invalid(path + ".role", "Invalid value for '" + path + ".role': '" + role
                            + "'. Supported values are: 'user', 'assistant', 'system' and 'developer'.");
                }
                item.set("content", contentParts(f.required("content"), role, path + ".content"));
                if (!item.has("id")) item.put("id", ResponseIds.next("msg"));
                if (!item.has("status")) item.put("status", "completed");
            }
            case "function_call" -> {
                f.requiredString("call_id");
                f.requiredString("name");
                String arguments = f.requiredString("arguments");
                checkJson(arguments, path + ".arguments");
                if (!item.has("id")) item.put("id", ResponseIds.next("fc"));
            }
            case "custom_tool_call" -> {
                f.requiredString("call_id");
                f.requiredString("name");
                f.requiredString("input");
                if (!item.has("id")) item.put("id", ResponseIds.next("ctc"));
            }
            case "function_call_output", "custom_tool_call_output" -> {
                f.requiredString("call_id");
                outputText(f.required("output"), path + ".output");
                if (!item.has("id")) item.put("id", ResponseIds.next("fco"));
            }
            case "item_reference" -> throw ApiError.unsupported(path + ".type",
                    "Item references are not supported on this server; send the items themselves or use "
                            + "'previous_response_id'.");
            default -> {
                if (!IGNORED.contains(type)) {
                    throw ApiError.invalid(path + ".type", "Invalid value for '" + path + ".type': '" + type + "'.");
                }
            }
        }
        return item;
    }

    /** The items of a conversation as the engine's messages. */
    static List<Message> toMessages(List<? extends JsonNode> items, ResponseTools tools) {
        List<Message> out = new ArrayList<>(items.size());
        StringBuilder assistantText = null;
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode item : items) {
            String type = item.path("type").asText();
            switch (type) {
                case "message" -> {
                    String role = item.path("role").asText();
                    String text = text(item.path("content"));
                    if (role.equals("assistant")) {
                        if (!calls.isEmpty()) {
                            flush(out, assistantText, calls);
                            assistantText = null;
                        }
                        assistantText = assistantText == null ? new StringBuilder(text) : assistantText.append(text);
                    } else {
                        flush(out, assistantText, calls);
                        assistantText = null;
                        out.add(switch (role) {
                            case "system" -> Message.system(text);
                            case "developer" -> Message.developer(text);
                            default -> Message.user(text);
                        });
                    }
                }
                case "function_call" -> calls.add(new ToolCall(item.path("call_id").asText(),
                        ResponseTools.modelName(item.path("namespace").asText(null), item.path("name").asText()),
                        item.path("arguments").asText()));
                case "custom_tool_call" -> {
                    ObjectNode arguments = WireJson.mapper().createObjectNode().put("input", item.path("input").asText());
                    calls.add(new ToolCall(item.path("call_id").asText(),
                            ResponseTools.modelName(item.path("namespace").asText(null), item.path("name").asText()),
                            arguments.toString()));
                }
                case "function_call_output", "custom_tool_call_output" -> {
                    flush(out, assistantText, calls);
                    assistantText = null;
                    out.add(Message.tool(item.path("call_id").asText(), outputText(item.path("output"), "output")));
                }
                default -> {
                }
            }
        }
        flush(out, assistantText, calls);
        return out;
    }

    private static void flush(List<Message> out, StringBuilder assistantText, List<ToolCall> calls) {
        if (assistantText == null && calls.isEmpty()) return;
        String content = assistantText == null ? null : assistantText.toString();
        out.add(calls.isEmpty() ? Message.assistant(content) : Message.assistant(content, List.copyOf(calls)));
        calls.clear();
    }

    private static String text(JsonNode parts) {
        StringBuilder text = new StringBuilder();
        for (JsonNode part : parts) {
            if (!text.isEmpty()) text.append('\n');
            text.append(part.path("text").asText(part.path("refusal").asText("")));
        }
        return text.toString();
    }

    /** A message's content as a list of text parts: a string becomes one part. */
    private static ArrayNode contentParts(JsonNode content, String role, String path) {
        ArrayNode parts = WireJson.mapper().createArrayNode();
        String textType = role.equals("assistant") ? "output_text" : "input_text";
        if (content.isTextual()) {
            ObjectNode part = parts.addObject().put("type", textType).put("text", content.textValue());
            if (role.equals("assistant")) part.putArray("annotations");
            return parts;
        }
        if (!content.isArray()) {
            throw ApiError.invalidType(path, "a string or an array of content parts", Fields.describe(content));
        }
        for (int i = 0; i < content.size(); i++) {
            String partPath = path + "[" + i + "]";
            Fields part = Fields.ofObject(content.get(i), partPath);
            String type = part.requiredString("type");
            switch (type) {
                case "input_text", "output_text", "text", "summary_text", "reasoning_text" -> part.requiredString("text");
                case "refusal" -> part.requiredString("refusal");
                case "input_image", "input_file", "input_audio" -> throw ApiError.unsupported(partPath + ".type",
                        "Content parts of type '" + type + "' are not supported: this server's models read text only.");
                default -> throw ApiError.invalid(partPath + ".type", "Invalid value for '" + partPath + ".type': '"
                        + type + "'. Supported values are: 'input_text', 'output_text' and 'refusal'.");
            }
            parts.add(content.get(i).deepCopy());
        }
        return parts;
    }

    /** A call output: a string, or text parts joined. */
    private static String outputText(JsonNode output, String path) {
        if (output.isTextual()) return output.textValue();
        if (!output.isArray()) throw ApiError.invalidType(path, "a string or an array", Fields.describe(output));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < output.size(); i++) {
            String partPath = path + "[" + i + "]";
            Fields part = Fields.ofObject(output.get(i), partPath);
            String type = part.requiredString("type");
            if (!type.equals("input_text") && !type.equals("output_text")) {
                throw ApiError.unsupported(partPath + ".type", "Call outputs of type '" + type
                        + "' are not supported: this server's models read text only.");
            }
            if (!text.isEmpty()) text.append('\n');
            text.append(part.requiredString("text"));
        }
        return text.toString();
    }

    private static void checkJson(String text, String path) {
        try {
            WireJson.mapper().readTree(text);
        } catch (IOException e) {
            throw ApiError.invalid(path, "Invalid '" + path + "': not a JSON text.");
        }
    }
}
