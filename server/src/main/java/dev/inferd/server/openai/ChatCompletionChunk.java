package dev.inferd.server.openai;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * One streamed chat event. {@code usage} appears only on the final usage chunk (whose
 * {@code choices} is empty) and is left out, not null, everywhere else; there is never an
 * {@code error} key (the Java SDK throws on its mere presence).
 */
public record ChatCompletionChunk(String id, String object, long created, String model, String systemFingerprint,
                                  List<Choice> choices,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Usage usage) {

    public record Choice(int index, Delta delta, ChatLogprobs logprobs, String finishReason) {
    }

    /** The three delta shapes a text reply uses. */
    public sealed interface Delta permits RoleDelta, ContentDelta, EmptyDelta {
    }

    /** The first delta of every choice: {@code {"role":"assistant","content":"","refusal":null}}. */
    public record RoleDelta(String role, String content, String refusal) implements Delta {
        public static final RoleDelta ASSISTANT = new RoleDelta("assistant", "", null);
    }

    public record ContentDelta(String content) implements Delta {
    }

    /** The finish chunk's {@code {}}. */
    public record EmptyDelta() implements Delta {
        public static final EmptyDelta INSTANCE = new EmptyDelta();
    }

    /** Builds the chunks of one stream, which all share id, created, model and fingerprint. */
    public record Factory(String id, long created, String model, String systemFingerprint) {

        public ChatCompletionChunk role(int index) {
            return one(new Choice(index, RoleDelta.ASSISTANT, null, null));
        }

        public ChatCompletionChunk content(int index, String text, ChatLogprobs logprobs) {
            return one(new Choice(index, new ContentDelta(text), logprobs, null));
        }

        public ChatCompletionChunk finish(int index, String finishReason) {
            return one(new Choice(index, EmptyDelta.INSTANCE, null, finishReason));
        }

        public ChatCompletionChunk usage(Usage usage) {
            return new ChatCompletionChunk(id, "chat.completion.chunk", created, model, systemFingerprint,
                    List.of(), usage);
        }

        private ChatCompletionChunk one(Choice choice) {
            return new ChatCompletionChunk(id, "chat.completion.chunk", created, model, systemFingerprint,
                    List.of(choice), null);
        }
    }
}
