package dev.inferd.server.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.ToolCall;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Fields;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code messages} of a Messages API request as the conversation the chat template renders. A user turn's
 * {@code tool_result} blocks become tool messages (in block order, text between them a user message), an
 * assistant turn's {@code tool_use} blocks its tool calls. Thinking blocks of earlier turns are left out, as
 * Anthropic's own models do not see them again either. A {@code system} turn inside {@code messages} (Claude
 * Code sends them) is a system message here; {@link SystemTurns} decides where it goes.
 */
final class MessageBlocks {

    private MessageBlocks() {
    }

    static List<Message> turns(JsonNode messages) {
        if (!messages.isArray()) {
            throw ApiError.invalidType("messages", "an array", Fields.describe(messages));
        }
        if (messages.isEmpty()) {
            throw ApiError.invalid("messages", "Invalid 'messages': at least one message is required.");
        }
        List<Message> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            String path = "messages[" + i + "]";
            Fields m = Fields.ofObject(messages.get(i), path);
            String role = m.requiredString("role");
            JsonNode content = m.required("content");
            switch (role) {
                case "user" -> user(content, path, turns);
                case "assistant" -> assistant(content, path, turns);
                case "system" -> turns.add(Message.system(texts(content, path, "a system turn")));
                default -> throw ApiError.invalid(path + ".role", "Invalid value for '" + path + ".role': '" + role
                        + "'. Supported values are: 'user' and 'assistant'.");
            }
        }
        return turns;
    }

    private static void user(JsonNode content, String path, List<Message> turns) {
        if (content.isTextual()) {
            turns.add(Message.user(content.textValue()));
            return;
        }
        if (blocks(content, path).isEmpty()) {
            turns.add(Message.user(""));
            return;
        }
        List<String> text = new ArrayList<>();
        eachBlock(content, path, (block, type, blockPath) -> {
            switch (type) {
                case "text" -> text.add(block.requiredString("text"));
                case "tool_result" -> {
                    flushUser(text, turns);
                    turns.add(toolResult(block, blockPath));
                }
                case "image", "document", "search_result", "container_upload" -> throw unreadable(blockPath, type);
                default -> throw unknownBlock(blockPath, type, "'text' and 'tool_result'");
            }
        });
        flushUser(text, turns);
    }

    private static void flushUser(List<String> text, List<Message> turns) {
        if (!text.isEmpty()) turns.add(Message.user(String.join("\n", text)));
        text.clear();
    }

    private static Message toolResult(Fields block, String path) {
        String toolUseId = block.requiredString("tool_use_id");
        String text = block.node("content").map(c -> texts(c, path, "a tool result")).orElse("");
        // Chat templates have no place for a failed call; the text says so instead.
        if (block.bool("is_error", false)) text = text.isEmpty() ? "Error" : "Error: " + text;
        return Message.tool(toolUseId, text);
    }

    private static void assistant(JsonNode content, String path, List<Message> turns) {
        if (content.isTextual()) {
            turns.add(Message.assistant(content.textValue()));
            return;
        }
        List<String> text = new ArrayList<>();
        List<ToolCall> calls = new ArrayList<>();
        eachBlock(content, path, (block, type, blockPath) -> {
            switch (type) {
                case "text" -> text.add(block.requiredString("text"));
                case "tool_use" -> {
                    JsonNode input = block.node("input").orElse(null);
                    if (input != null && !input.isObject()) {
                        throw ApiError.invalidType(block.path("input"), "an object", Fields.describe(input));
                    }
                    calls.add(new ToolCall(block.requiredString("id"), block.requiredString("name"),
                            input == null ? "{}" : input.toString()));
                }
                case "thinking", "redacted_thinking" -> {
                    // Earlier thinking is not shown to the model again.
                }
                case "image", "document" -> throw unreadable(blockPath, type);
                default -> throw unknownBlock(blockPath, type, "'text', 'tool_use', 'thinking' and 'redacted_thinking'");
            }
        });
        String joined = text.isEmpty() ? null : String.join("\n", text);
        if (joined == null && calls.isEmpty()) joined = "";
        turns.add(Message.assistant(joined, calls));
    }

    /** A string, or text blocks joined by newlines: the content of a system turn or a tool result. */
    private static String texts(JsonNode content, String path, String what) {
        if (content.isTextual()) return content.textValue();
        List<String> texts = new ArrayList<>();
        eachBlock(content, path, (block, type, blockPath) -> {
            switch (type) {
                case "text" -> texts.add(block.requiredString("text"));
                case "image", "document", "search_result" -> throw unreadable(blockPath, type);
                default -> throw unknownBlock(blockPath, type, "'text' in " + what);
            }
        });
        return String.join("\n", texts);
    }

    /** Reads one content block: its fields, its {@code type}, and its path for error messages. */
    private interface BlockReader {
        void read(Fields block, String type, String blockPath);
    }

    /** Hands each block of an array {@code content} to {@code reader}, in order. */
    private static void eachBlock(JsonNode content, String path, BlockReader reader) {
        JsonNode blocks = blocks(content, path);
        for (int i = 0; i < blocks.size(); i++) {
            String blockPath = path + ".content[" + i + "]";
            Fields block = Fields.ofObject(blocks.get(i), blockPath);
            reader.read(block, block.requiredString("type"), blockPath);
        }
    }

    private static JsonNode blocks(JsonNode content, String path) {
        if (!content.isArray()) {
            throw ApiError.invalidType(path + ".content", "a string or an array of content blocks",
                    Fields.describe(content));
        }
        return content;
    }

    private static ApiError unreadable(String path, String type) {
        return ApiError.unsupported(path + ".type", "Content blocks of type '" + type
                + "' are not supported: this server's models read text only.");
    }

    private static ApiError unknownBlock(String path, String type, String supported) {
        return ApiError.invalid(path + ".type", "Invalid value for '" + path + ".type': '" + type
                + "'. Supported values are: " + supported + ".");
    }
}
