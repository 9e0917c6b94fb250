package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.generate.ChatMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Turns a chat completion request body into a {@link ChatRequest}, or a 400 that names the field. */
public final class ChatRequestParser {

    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");
    private static final int MAX_TOP_LOGPROBS = 20;

    private ChatRequestParser() {
    }

    public static ChatRequest parse(JsonNode body) {
        Fields f = Fields.ofBody(body);
        String model = f.requiredString("model");
        List<ChatMessage> messages = messages(f.required("messages"));
        rejectUnsupportedFeatures(f);

        boolean stream = f.bool("stream", false);
        boolean includeUsage = CommonFields.includeUsage(f) && stream;
        Integer maxTokens = maxTokens(f);
        boolean logprobs = f.bool("logprobs", false);
        Integer top = f.intValue("top_logprobs", 0, MAX_TOP_LOGPROBS).orElse(null);
        if (top != null && top > 0 && !logprobs) {
            throw ApiError.invalid("top_logprobs",
                    "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.");
        }
        int topLogprobs = logprobs ? (top == null ? 0 : top) : -1;
        return new ChatRequest(model, messages, stream, includeUsage, CommonFields.sampling(f), maxTokens,
                CommonFields.stop(f), CommonFields.n(f), topLogprobs);
    }

    /** {@code max_completion_tokens} replaces the deprecated {@code max_tokens}; when both come, the lower wins. */
    private static Integer maxTokens(Fields f) {
        Integer legacy = f.intValue("max_tokens", 1, Integer.MAX_VALUE).orElse(null);
        Integer current = f.intValue("max_completion_tokens", 1, Integer.MAX_VALUE).orElse(null);
        if (legacy == null) return current;
        if (current == null) return legacy;
        return Math.min(legacy, current);
    }

    private static List<ChatMessage> messages(JsonNode node) {
        if (!node.isArray()) throw ApiError.invalidType("messages", "an array", Fields.describe(node));
        if (node.isEmpty()) {
            throw ApiError.invalid("messages",
                    "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.");
        }
        List<ChatMessage> messages = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            messages.add(message(node.get(i), "messages[" + i + "]"));
        }
        return messages;
    }

    private static ChatMessage message(JsonNode node, String path) {
        Fields m = Fields.ofObject(node, path);
        String role = m.requiredString("role");
        if ("function".equals(role)) {
            throw ApiError.unsupported(path + ".role",
                    "The deprecated 'function' role is not supported; function calling is not supported yet.");
        }
        if (!ROLES.contains(role)) {
            throw ApiError.invalid(path + ".role", "Invalid value for '" + path + ".role': '" + role
                    + "'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.");
        }
        if ("assistant".equals(role) && m.node("tool_calls").filter(t -> !t.isEmpty()).isPresent()) {
            throw ApiError.unsupported(path + ".tool_calls", "Tool calls are not supported by this server yet.");
        }
        if ("tool".equals(role)) m.requiredString("tool_call_id");
        String content = content(m, role, path);
        // Chat templates know "system" but rarely "developer", which OpenAI introduced as its replacement.
        return new ChatMessage("developer".equals(role) ? "system" : role, content);
    }

    private static String content(Fields m, String role, String path) {
        var node = m.node("content");
        if (node.isEmpty()) {
            if ("assistant".equals(role)) return "";
            throw ApiError.missing(m.path("content"));
        }
        JsonNode content = node.get();
        if (content.isTextual()) return content.textValue();
        if (!content.isArray()) {
            throw ApiError.invalidType(m.path("content"), "a string or an array of content parts",
                    Fields.describe(content));
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < content.size(); i++) {
            String partPath = path + ".content[" + i + "]";
            Fields part = Fields.ofObject(content.get(i), partPath);
            String type = part.requiredString("type");
            switch (type) {
                case "text" -> texts.add(part.requiredString("text"));
                case "image_url", "input_audio", "file" -> throw ApiError.unsupported(partPath + ".type",
                        "Content parts of type '" + type + "' are not supported: this server's models read text only.");
                default -> throw ApiError.invalid(partPath + ".type", "Invalid value for '" + partPath
                        + ".type': '" + type + "'. Supported values are: 'text'.");
            }
        }
        // Parts are separate paragraphs to the user; a newline keeps words from running together.
        return String.join("\n", texts);
    }

    /** Tools and structured output come later; refuse them loudly rather than ignore them. */
    private static void rejectUnsupportedFeatures(Fields f) {
        f.node("tools").ifPresent(tools -> {
            if (!tools.isArray()) throw ApiError.invalidType("tools", "an array", Fields.describe(tools));
            if (!tools.isEmpty()) {
                throw ApiError.unsupported("tools", "Tool calling ('tools') is not supported by this server yet.");
            }
        });
        f.node("functions").filter(fn -> !fn.isEmpty()).ifPresent(fn -> {
            throw ApiError.unsupported("functions", "Function calling ('functions') is not supported by this server yet.");
        });
        f.node("tool_choice").ifPresent(choice -> {
            boolean harmless = choice.isTextual() && Set.of("none", "auto").contains(choice.textValue());
            if (!harmless) {
                throw ApiError.unsupported("tool_choice",
                        "Tool calling is not supported by this server yet; 'tool_choice' may only be 'none' or 'auto'.");
            }
        });
        f.node("function_call").ifPresent(call -> {
            if (!(call.isTextual() && Set.of("none", "auto").contains(call.textValue()))) {
                throw ApiError.unsupported("function_call", "Function calling is not supported by this server yet.");
            }
        });
        f.node("response_format").ifPresent(format -> {
            String type = Fields.ofObject(format, "response_format").requiredString("type");
            switch (type) {
                case "text" -> { }
                case "json_object", "json_schema" -> throw ApiError.unsupported("response_format",
                        "'response_format' of type '" + type + "' is not supported by this server yet.");
                default -> throw ApiError.invalid("response_format.type", "Invalid value for 'response_format.type': '"
                        + type + "'. Supported values are: 'text', 'json_object' and 'json_schema'.");
            }
        });
        f.node("modalities").ifPresent(modalities -> {
            for (JsonNode m : modalities) {
                if (!"text".equals(m.asText())) {
                    throw ApiError.unsupported("modalities", "Only the 'text' output modality is supported.");
                }
            }
        });
    }
}
