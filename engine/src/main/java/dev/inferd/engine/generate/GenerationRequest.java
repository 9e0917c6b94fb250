package dev.inferd.engine.generate;

import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.sample.TokenConstraint;

import java.util.List;
import java.util.Set;

/**
 * One request to generate {@code n} independent continuations of the same prompt.
 *
 * @param prompt prompt token ids, BOS included where the model wants one
 * @param n number of choices
 * @param maxTokens upper bound on generated tokens per choice; generation also ends at the context limit
 * @param stop stop sequences; the matched stop sequence never appears in the output
 * @param logprobs -1 for no log-probabilities, otherwise the number of top alternatives per token
 * @param constraint the tokens each choice may take (a grammar), or null for any
 * @param controlTokenText control tokens (by vocabulary text) whose text goes into the output, as a
 *        parser of the output needs them (tool-call markers such as {@code <|python_tag|>}); other
 *        control tokens add no text
 */
public record GenerationRequest(int[] prompt, int n, int maxTokens, List<String> stop,
                                SamplingParams sampling, int logprobs, TokenConstraint.Factory constraint,
                                Set<String> controlTokenText) {

    public GenerationRequest {
        stop = stop == null ? List.of() : List.copyOf(stop);
        controlTokenText = controlTokenText == null ? Set.of() : Set.copyOf(controlTokenText);
        if (n < 1) throw new IllegalArgumentException("n must be at least 1");
        if (maxTokens < 0) throw new IllegalArgumentException("maxTokens must not be negative");
    }

    public GenerationRequest(int[] prompt, int n, int maxTokens, List<String> stop, SamplingParams sampling,
                             int logprobs, TokenConstraint.Factory constraint) {
        this(prompt, n, maxTokens, stop, sampling, logprobs, constraint, Set.of());
    }

    /** This request, with these control tokens' text in the output. */
    public GenerationRequest withControlTokenText(Set<String> texts) {
        return new GenerationRequest(prompt, n, maxTokens, stop, sampling, logprobs, constraint, texts);
    }

    /** An unconstrained request. */
    public GenerationRequest(int[] prompt, int n, int maxTokens, List<String> stop, SamplingParams sampling,
                             int logprobs) {
        this(prompt, n, maxTokens, stop, sampling, logprobs, null);
    }

    public boolean wantsLogprobs() {
        return logprobs >= 0;
    }
}
