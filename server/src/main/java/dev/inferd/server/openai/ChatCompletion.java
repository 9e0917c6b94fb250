package dev.inferd.server.openai;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/** The non-streaming chat completion response. */
public record ChatCompletion(String id, String object, long created, String model, List<Choice> choices,
                             Usage usage, String systemFingerprint) {

    public ChatCompletion(String id, long created, String model, List<Choice> choices, Usage usage,
                          String systemFingerprint) {
        this(id, "chat.completion", created, model, List.copyOf(choices), usage, systemFingerprint);
    }

    /** All four keys always present; {@code logprobs} is null unless asked for. */
    public record Choice(int index, Message message, ChatLogprobs logprobs, String finishReason) {
    }

    /**
     * {@code content} and {@code refusal} are required but nullable; a refusal never happens here.
     * {@code tool_calls} and {@code reasoning_content} appear only when there are some.
     */
    public record Message(String role, String content, String refusal,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ToolCall> toolCalls,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String reasoningContent) {
        public static Message assistant(String content) {
            return new Message("assistant", content, null, List.of(), null);
        }
    }

    /** One call: {@code arguments} is the JSON text of the arguments, as a string. */
    public record ToolCall(String id, String type, Function function) {
        public static ToolCall function(String id, String name, String arguments) {
            return new ToolCall(id, "function", new Function(name, arguments));
        }
    }

    public record Function(String name, String arguments) {
    }
}
