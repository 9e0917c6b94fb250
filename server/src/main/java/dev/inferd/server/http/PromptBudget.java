package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.tokenizer.TooManyTokensException;
import dev.inferd.server.openai.ApiError;

import java.util.Map;
import java.util.function.IntFunction;

/** Fits a prompt and its completion into the model's context. */
final class PromptBudget {

    private PromptBudget() {
    }

    /**
     * Tokenizes a prompt. The engine reports a conversation or text it cannot render (a template
     * that rejects the roles' order, say) as {@link IllegalArgumentException}: that is the client's
     * input, so it is a 400, not a 500.
     */
    static int[] tokenize(IntFunction<int[]> tokenizer, TextGenerator generator, String param) {
        int context = generator.description().contextLength();
        try {
            // Tokenization stops once the prompt cannot leave room for one generated token.
            return tokenizer.apply(context - 1);
        } catch (TooManyTokensException e) {
            throw ApiError.contextLengthExceeded(param, context, e.atLeast(), !e.exact());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }

    /**
     * The number of tokens each choice may generate: the client's cap, or without one all the room the
     * context leaves (the choice then ends with finish_reason {@code length} at the context's end). A
     * prompt that leaves no room, or a cap beyond the room, is a 400 with the counts, as OpenAI answers.
     */
    static int maxTokens(TextGenerator generator, int promptTokens, Integer requested, String param) {
        int context = generator.description().contextLength();
        if (promptTokens >= context) throw ApiError.contextLengthExceeded(param, context, promptTokens);
        int room = context - promptTokens;
        if (requested == null) return room;
        if (requested > room) throw ApiError.completionBeyondContext(param, context, promptTokens, requested);
        return requested;
    }

    /** Every {@code logit_bias} key must be a token id of the model. */
    static void checkLogitBias(TextGenerator generator, Map<Integer, Float> logitBias) {
        int vocabulary = generator.vocabularySize();
        for (int token : logitBias.keySet()) {
            if (token >= vocabulary) {
                throw ApiError.invalid("logit_bias", "Invalid key in 'logit_bias': token id " + token
                        + " is outside the model's vocabulary of " + vocabulary + " tokens.");
            }
        }
    }
}
