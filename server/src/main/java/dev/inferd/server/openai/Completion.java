package dev.inferd.server.openai;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * A legacy completion, streamed or not: every streamed chunk is also {@code object:"text_completion"}.
 * {@code usage} is left out of streamed text chunks.
 */
public record Completion(String id, String object, long created, String model, String systemFingerprint,
                         List<Choice> choices,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Usage usage) {

    public Completion(String id, long created, String model, String systemFingerprint, List<Choice> choices,
                      Usage usage) {
        this(id, "text_completion", created, model, systemFingerprint, List.copyOf(choices), usage);
    }

    /** All four keys always present; {@code finish_reason} null until the choice ends. */
    public record Choice(String text, int index, CompletionLogprobs logprobs, String finishReason) {
    }
}
