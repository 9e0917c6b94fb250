package dev.inferd.server.openai;

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

    /** {@code content} and {@code refusal} are required but nullable; a refusal never happens here. */
    public record Message(String role, String content, String refusal) {
        public static Message assistant(String content) {
            return new Message("assistant", content, null);
        }
    }
}
