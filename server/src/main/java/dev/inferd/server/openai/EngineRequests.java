package dev.inferd.server.openai;

import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.sample.TokenConstraint;

import dev.inferd.engine.tokenizer.TooManyTokensException;

import java.util.Map;
import java.util.function.IntFunction;

/** Where an OpenAI request becomes the engine's request. */
public final class EngineRequests {

    /** OpenAI's limit on {@code n}: an engine serving this API must take this many choices in one request. */
    public static final int MAX_CHOICES = CommonFields.MAX_N;

    private EngineRequests() {
    }

    /**
     * The engine's request for one prompt of {@code request}: the sampling fields in the engine's terms,
     * and the client's token cap, or without one all the room the context leaves (the choice then ends
     * with finish_reason {@code length} at the context's end). A prompt that leaves no room, or a cap
     * beyond the room, is a 400 with the counts, as OpenAI answers; so is a {@code logit_bias} key
     * outside the model's vocabulary.
     */
    public static GenerationRequest of(GenerationFields request, int[] prompt, TextGenerator generator,
                                       String promptParam) {
        return of(request, prompt, generator, promptParam, null);
    }

    /** As {@link #of(GenerationFields, int[], TextGenerator, String)}, each choice under {@code constraint} (null: free). */
    public static GenerationRequest of(GenerationFields request, int[] prompt, TextGenerator generator,
                                       String promptParam, TokenConstraint.Factory constraint) {
        checkLogitBias(generator, request.sampling().logitBias());
        int context = generator.description().contextLength();
        if (prompt.length >= context) throw ApiError.contextLengthExceeded(promptParam, context, prompt.length);
        int room = context - prompt.length;
        Integer cap = request.maxTokensCap();
        if (cap != null && cap > room) {
            throw ApiError.completionBeyondContext(promptParam, context, prompt.length, cap);
        }
        int maxTokens = cap == null ? Math.min(room, request.maxTokensWithoutCap()) : cap;
        return build(request.sampling(), request.stop(), request.n(), maxTokens, request.logprobCount(), prompt,
                generator, constraint, "max_tokens");
    }

    /**
     * The engine's request from fields already checked against the context: the sampling fields in the
     * engine's terms; a {@code logit_bias} key outside the model's vocabulary is a 400, and so is a
     * limit below the shortest complete output of {@code constraint}, naming {@code capParam}.
     */
    public static GenerationRequest build(SamplingFields s, java.util.List<String> stop, int n, int maxTokens,
                                          int logprobCount, int[] prompt, TextGenerator generator,
                                          TokenConstraint.Factory constraint, String capParam) {
        checkLogitBias(generator, s.logitBias());
        if (constraint != null) checkRoomForCompleteOutput(constraint.tokensToComplete(), maxTokens, capParam);
        // top_p = 0 means "keep only the most likely token"; the engine wants a mass in (0, 1], and the
        // smallest positive mass keeps exactly that one token.
        float topP = s.topP() == 0f ? Float.MIN_VALUE : s.topP();
        var sampling = new SamplingParams(s.temperature(), topP, s.seed(), s.presencePenalty(), s.frequencyPenalty(),
                s.logitBias(), s.topK());
        return new GenerationRequest(prompt, n, maxTokens, stop, sampling, logprobCount, constraint);
    }

    /**
     * A grammar's output is steered to be complete within the token limit; a limit below the shortest
     * complete output cannot hold one, so it is refused before anything runs.
     */
    private static void checkRoomForCompleteOutput(int needed, int maxTokens, String capParam) {
        if (needed <= maxTokens) return;
        if (needed == Integer.MAX_VALUE) {
            throw ApiError.invalid(capParam, "Invalid '" + capParam + "': the structured output cannot be written in "
                    + "this model's vocabulary.");
        }
        throw ApiError.invalid(capParam, "Invalid '" + capParam + "': the structured output (the output format or "
                + "the forced tool call) needs at least " + needed + " tokens to be complete, and at most " + maxTokens
                + " can be generated (" + capParam + ", or the room the prompt leaves in the context).");
    }

    /**
     * Tokenizes a prompt, given the most tokens it may have: tokenization stops once the prompt cannot
     * leave room for one generated token. The engine reports a conversation or text it cannot render
     * (a template that rejects the roles' order, say) as {@link IllegalArgumentException}: that is the
     * client's input, so it is a 400, not a 500.
     */
    public static int[] tokenize(IntFunction<int[]> tokenizer, TextGenerator generator, String param) {
        int context = generator.description().contextLength();
        try {
            return tokenizer.apply(context - 1);
        } catch (TooManyTokensException e) {
            throw ApiError.contextLengthExceeded(param, context, e.atLeast(), !e.exact());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
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
