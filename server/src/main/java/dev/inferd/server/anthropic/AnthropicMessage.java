package dev.inferd.server.anthropic;

import java.util.List;

/**
 * The assistant's reply as Anthropic's API returns it ({@code "type":"message"}); in a stream, the same object
 * with no content and no stop reason opens it.
 *
 * @param stopReason {@code end_turn}, {@code max_tokens}, {@code stop_sequence} or {@code tool_use}; null while streaming
 * @param stopSequence the stop sequence that ended the reply, else null
 */
public record AnthropicMessage(String id, String type, String role, String model, List<ContentBlock> content,
                               String stopReason, String stopSequence, MessageUsage usage) {

    public AnthropicMessage {
        content = List.copyOf(content);
    }

    public static AnthropicMessage of(String id, String model, List<ContentBlock> content, String stopReason,
                                      String stopSequence, MessageUsage usage) {
        return new AnthropicMessage(id, "message", "assistant", model, content, stopReason, stopSequence, usage);
    }

    /** The {@code message} of {@code message_start}: nothing generated yet. */
    public static AnthropicMessage started(String id, String model, MessageUsage usage) {
        return of(id, model, List.of(), null, null, usage);
    }

    /** A block of the reply's {@code content}. */
    public sealed interface ContentBlock permits Text, Thinking, ToolUse {
        String type();
    }

    public record Text(String type, String text) implements ContentBlock {
        public Text(String text) {
            this("text", text);
        }
    }

    /** @param signature opaque to clients, which send it back with the block (see {@link ThinkingSignature}) */
    public record Thinking(String type, String thinking, String signature) implements ContentBlock {
        public Thinking(String thinking, String signature) {
            this("thinking", thinking, signature);
        }
    }

    /** @param input the arguments as a JSON object (a tree, not text) */
    public record ToolUse(String type, String id, String name, Object input) implements ContentBlock {
        public ToolUse(String id, String name, Object input) {
            this("tool_use", id, name, input);
        }
    }
}
