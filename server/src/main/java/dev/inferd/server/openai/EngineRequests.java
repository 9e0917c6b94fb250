package dev.inferd.server.openai;

import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.sample.TokenConstraint;

import java.util.function.Supplier;

/** Where an OpenAI request becomes the engine's request. */
public final class EngineRequests {

    /** OpenAI's limit on {@code n}: an engine serving this API must take this many choices in one request. */
    public static final int MAX_CHOICES = CommonFields.MAX_N;

    private EngineRequests() {
    }

    /**
     * The engine's request for one prompt of {@code request}: the sampling fields in the engine's terms,
     * and the client's token cap lowered so that prompt plus completion fit the model's context. A
     * prompt that leaves no room is a 400 that names {@code promptParam}.
     */
    public static GenerationRequest of(GenerationFields request, int[] prompt, TextGenerator generator,
                                       String promptParam) {
        return of(request, prompt, generator, promptParam, null);
    }

    /** As {@link #of(GenerationFields, int[], TextGenerator, String)}, each choice under {@code constraint} (null: free). */
    public static GenerationRequest of(GenerationFields request, int[] prompt, TextGenerator generator,
                                       String promptParam, TokenConstraint.Factory constraint) {
        int context = generator.description().contextLength();
        if (prompt.length >= context) throw ApiError.contextLengthExceeded(promptParam, context, prompt.length);
        int room = context - prompt.length;
        int maxTokens = request.maxTokensCap() == null ? room : Math.min(request.maxTokensCap(), room);
        SamplingFields s = request.sampling();
        // top_p = 0 means "keep only the most likely token"; the engine wants a mass in (0, 1], and the
        // smallest positive mass keeps exactly that one token.
        float topP = s.topP() == 0f ? Float.MIN_VALUE : s.topP();
        var sampling = new SamplingParams(s.temperature(), topP, s.seed(), s.presencePenalty(), s.frequencyPenalty(),
                s.logitBias());
        return new GenerationRequest(prompt, request.n(), maxTokens, request.stop(), sampling, request.logprobCount(),
                constraint);
    }

    /**
     * Tokenizes a prompt. The engine reports a conversation or text it cannot render (a template
     * that rejects the roles' order, say) as {@link IllegalArgumentException}: that is the client's
     * input, so it is a 400, not a 500.
     */
    public static int[] tokenize(Supplier<int[]> tokenizer, String param) {
        try {
            return tokenizer.get();
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }
}
