package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.generate.ChatMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
        JsonNode messageNodes = f.required("messages");
        List<ChatMessage> messages = messages(messageNodes);
        List<Message> conversation = ChatMessages.parse(messageNodes);
        rejectUnsupportedFeatures(f);
        ResponseFormat responseFormat = StructuredOutputFields.responseFormat(f);
        ChatTools tools = StructuredOutputFields.tools(f);
        Map<String, Object> templateVariables = StructuredOutputFields.templateVariables(f);
        boolean separateReasoning = f.bool("separate_reasoning", true);

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
                CommonFields.stop(f), CommonFields.n(f), topLogprobs, conversation, responseFormat, tools, templateVariables,
                separateReasoning, StructuredOutputFields.freeJsonLayout(f));
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
                    "The deprecated 'function' role is not supported; use 'tool' messages with 'tool_call_id'.");
        }
        if (!ROLES.contains(role)) {
            throw ApiError.invalid(path + ".role", "Invalid value for '" + path + ".role': '" + role
                    + "'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.");
        }
        if ("tool".equals(role)) m.requiredString("tool_call_id");
        String content = content(m, role, path);
        // Chat templates know "system" but rarely "developer", which OpenAI introduced as its replacement.
        return new ChatMessage("developer".equals(role) ? "system" : role, content);
    }

    static String content(Fields m, String role, String path) {
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

    /** The deprecated {@code functions}/{@code function_call} forms are refused: {@code tools} replaces them. */
    private static void rejectUnsupportedFeatures(Fields f) {
        f.node("functions").filter(fn -> !fn.isEmpty()).ifPresent(fn -> {
            throw ApiError.unsupported("functions", "The deprecated 'functions' field is not supported; use 'tools'.");
        });
        f.node("function_call").ifPresent(call -> {
            if (!(call.isTextual() && Set.of("none", "auto").contains(call.textValue()))) {
                throw ApiError.unsupported("function_call",
                        "The deprecated 'function_call' field is not supported; use 'tool_choice'.");
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
