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
    public sealed interface Delta permits RoleDelta, ContentDelta, ReasoningDelta, ToolCallsDelta, EmptyDelta {
    }

    /** The first delta of every choice: {@code {"role":"assistant","content":"","refusal":null}}. */
    public record RoleDelta(String role, String content, String refusal) implements Delta {
        public static final RoleDelta ASSISTANT = new RoleDelta("assistant", "", null);
    }

    public record ContentDelta(String content) implements Delta {
    }

    /** Thinking text, apart from the content (the field DeepSeek and vLLM use). */
    public record ReasoningDelta(String reasoningContent) implements Delta {
    }

    /** One fragment of one call. */
    public record ToolCallsDelta(List<ToolCallFragment> toolCalls) implements Delta {
    }

    /**
     * The first fragment of a call has {@code id}, {@code type} and the name with {@code arguments: ""};
     * later ones only {@code index} and a piece of {@code arguments}.
     */
    public record ToolCallFragment(int index, @JsonInclude(JsonInclude.Include.NON_NULL) String id,
                                   @JsonInclude(JsonInclude.Include.NON_NULL) String type, FunctionFragment function) {
    }

    public record FunctionFragment(@JsonInclude(JsonInclude.Include.NON_NULL) String name, String arguments) {
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

        /** The first delta of a reply known to be a tool call: {@code content} null. */
        public ChatCompletionChunk roleForCall(int index) {
            return one(new Choice(index, new RoleDelta("assistant", null, null), null, null));
        }

        public ChatCompletionChunk reasoning(int index, String text) {
            return one(new Choice(index, new ReasoningDelta(text), null, null));
        }

        public ChatCompletionChunk callStart(int index, int call, String id, String name) {
            return one(new Choice(index, new ToolCallsDelta(List.of(
                    new ToolCallFragment(call, id, "function", new FunctionFragment(name, "")))), null, null));
        }

        public ChatCompletionChunk callArguments(int index, int call, String piece) {
            return one(new Choice(index, new ToolCallsDelta(List.of(
                    new ToolCallFragment(call, null, null, new FunctionFragment(null, piece)))), null, null));
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
