package dev.inferd.engine.generate;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.grammar.TokenVocabulary;

import java.util.List;

/**
 * A loaded language model as the server uses it: prompts in, streamed text out. Implementations
 * are thread-safe; concurrent requests may be queued or batched.
 */
public interface TextGenerator extends AutoCloseable {

    ModelDescription description();

    /** The number of token ids the model knows; ids from 0 to this, exclusive, are valid in {@code logit_bias}. */
    default int vocabularySize() {
        return Integer.MAX_VALUE;
    }

    /** The conversation rendered with the model's chat template (generation prompt added) and tokenized. */
    int[] chatPrompt(List<ChatMessage> messages);

    /** The model's chat conventions: conversations with tools in, output split into content, reasoning and calls. */
    default ChatFormat chatFormat() {
        return ChatFormat.of(null, "", "");
    }

    /** A conversation rendered by {@link #chatFormat()}, tokenized. */
    default int[] chatPrompt(RenderedPrompt prompt) {
        throw new UnsupportedOperationException("this generator renders no chat formats");
    }

    /** The vocabulary as byte strings, for grammar constraints; null when the generator cannot be constrained. */
    default TokenVocabulary vocabulary() {
        return null;
    }

    /** A raw text prompt tokenized as a legacy completion prompt (BOS added where the model wants it). */
    int[] textPrompt(String prompt);

    /**
     * As {@link #chatPrompt(List)}, with work bounded by {@code maxTokens} rather than by the conversation.
     *
     * @throws dev.inferd.engine.tokenizer.TooManyTokensException when it has more tokens than that
     */
    default int[] chatPrompt(List<ChatMessage> messages, int maxTokens) {
        int[] tokens = chatPrompt(messages);
        if (tokens.length > maxTokens) {
            throw new dev.inferd.engine.tokenizer.TooManyTokensException(tokens.length, maxTokens);
        }
        return tokens;
    }

    /** As {@link #chatPrompt(RenderedPrompt)}, with work bounded by {@code maxTokens} rather than by the prompt. */
    default int[] chatPrompt(RenderedPrompt prompt, int maxTokens) {
        int[] tokens = chatPrompt(prompt);
        if (tokens.length > maxTokens) {
            throw new dev.inferd.engine.tokenizer.TooManyTokensException(tokens.length, maxTokens);
        }
        return tokens;
    }

    /** As {@link #textPrompt(String)}, with work bounded by {@code maxTokens} rather than by the text. */
    default int[] textPrompt(String prompt, int maxTokens) {
        int[] tokens = textPrompt(prompt);
        if (tokens.length > maxTokens) {
            throw new dev.inferd.engine.tokenizer.TooManyTokensException(tokens.length, maxTokens);
        }
        return tokens;
    }

    /**
     * Starts the request and returns at once; the engine's own thread then fills the returned
     * {@link Generation} with its events and result. The prompt plus at least one generated token must
     * fit the context; callers check first.
     *
     * @throws BusyException when too many requests are already waiting (nothing was started)
     * @throws IllegalArgumentException when the request can never run here (e.g. it needs more KV
     *                                  memory than the server has)
     */
    Generation submit(GenerationRequest request);

    @Override
    default void close() {
    }
}
