package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.ToolCall;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code messages} of a chat request as the engine's chat messages: developer turns, assistant
 * turns with {@code tool_calls} (content null), and tool results. Runs after {@link ChatRequestParser}
 * has checked roles and content.
 */
final class ChatMessages {

    private ChatMessages() {
    }

    static List<Message> parse(JsonNode messages) {
        List<Message> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            out.add(message(messages.get(i), "messages[" + i + "]"));
        }
        return out;
    }

    private static Message message(JsonNode node, String path) {
        Fields m = Fields.ofObject(node, path);
        String role = m.requiredString("role");
        List<ToolCall> calls = "assistant".equals(role) ? toolCalls(m, path) : List.of();
        String content = calls.isEmpty() || m.node("content").isPresent()
                ? ChatRequestParser.content(m, role, path) : null;
        String name = m.string("name").orElse(null);
        return switch (role) {
            case "system" -> new Message(Message.Role.SYSTEM, content, List.of(), null, name);
            case "developer" -> new Message(Message.Role.DEVELOPER, content, List.of(), null, name);
            case "user" -> new Message(Message.Role.USER, content, List.of(), null, name);
            case "assistant" -> new Message(Message.Role.ASSISTANT, content, calls, null, name);
            case "tool" -> new Message(Message.Role.TOOL, content, List.of(), m.requiredString("tool_call_id"), name);
            default -> throw ApiError.invalid(path + ".role", "Invalid value for '" + path + ".role': '" + role + "'.");
        };
    }

    private static List<ToolCall> toolCalls(Fields m, String path) {
        var node = m.node("tool_calls");
        if (node.isEmpty()) return List.of();
        JsonNode calls = node.get();
        if (!calls.isArray()) throw ApiError.invalidType(path + ".tool_calls", "an array", Fields.describe(calls));
        List<ToolCall> out = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            String callPath = path + ".tool_calls[" + i + "]";
            Fields call = Fields.ofObject(calls.get(i), callPath);
            String type = call.string("type").orElse("function");
            if (!"function".equals(type)) {
                throw ApiError.invalid(callPath + ".type", "Invalid value for '" + callPath + ".type': '" + type
                        + "'. Supported values are: 'function'.");
            }
            Fields function = Fields.ofObject(call.required("function"), callPath + ".function");
            String arguments = function.string("arguments").orElse("{}");
            try {
                WireJson.mapper().readTree(arguments);
            } catch (java.io.IOException e) {
                throw ApiError.invalid(callPath + ".function.arguments", "Invalid '" + callPath
                        + ".function.arguments': not a JSON text.");
            }
            out.add(new ToolCall(call.requiredString("id"), function.requiredString("name"), arguments));
        }
        return out;
    }
}
