package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.openai.ApiError;

import java.util.function.Supplier;

/** Fits a prompt and its completion into the model's context. */
final class PromptBudget {

    private PromptBudget() {
    }

    /**
     * Tokenizes a prompt. The engine reports a conversation or text it cannot render (a template
     * that rejects the roles' order, say) as {@link IllegalArgumentException}: that is the client's
     * input, so it is a 400, not a 500.
     */
    static int[] tokenize(Supplier<int[]> tokenizer, String param) {
        try {
            return tokenizer.get();
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }

    /**
     * The number of tokens each choice may generate: the client's cap (null for none) lowered so
     * that prompt plus completion fit the context. A prompt that leaves no room is a 400.
     */
    static int maxTokens(TextGenerator generator, int promptTokens, Integer requested, String param) {
        int context = generator.description().contextLength();
        if (promptTokens >= context) throw ApiError.contextLengthExceeded(param, context, promptTokens);
        int room = context - promptTokens;
        return requested == null ? room : Math.min(requested, room);
    }
}
