package dev.inferd.server.openai;

import dev.inferd.engine.generate.SamplingParams;

import java.util.List;

/**
 * A validated legacy {@code POST /v1/completions} request.
 *
 * @param prompts one or more text prompts; choice indexes run over prompt x n
 * @param maxTokens generated tokens per choice (OpenAI's default is 16; 0 is allowed)
 * @param maxTokensGiven whether the client set {@code max_tokens}; the default alone is lowered to fit the context
 * @param logprobs -1 without log-probabilities, else the number of alternatives per token (0..5)
 */
public record CompletionRequest(String model, List<String> prompts, boolean stream, boolean includeUsage,
                                SamplingParams sampling, int maxTokens, boolean maxTokensGiven, List<String> stop, int n,
                                boolean echo, int logprobs) {

    public CompletionRequest {
        prompts = List.copyOf(prompts);
        stop = List.copyOf(stop);
    }

    public boolean wantsLogprobs() {
        return logprobs >= 0;
    }
}
