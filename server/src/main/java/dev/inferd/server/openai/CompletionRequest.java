package dev.inferd.server.openai;


import java.util.List;

/**
 * A validated legacy {@code POST /v1/completions} request.
 *
 * @param prompts one or more text prompts; choice indexes run over prompt x n
 * @param maxTokens generated tokens per choice (OpenAI's default is 16; 0 is allowed)
 * @param maxTokensGiven whether the client set {@code max_tokens}; the default alone is lowered to fit the context
 * @param logprobs -1 without log-probabilities, else the number of alternatives per token (0..5)
 * @param responseFormat the chat API's {@code response_format}, accepted here as an extension
 * @param freeJsonLayout JSON under a grammar may be laid out freely (the extension {@code json_layout: "free"})
 */
public record CompletionRequest(String model, List<String> prompts, boolean stream, boolean includeUsage,
                                SamplingFields sampling, int maxTokens, boolean maxTokensGiven,
                                List<String> stop, int n,
                                boolean echo, int logprobs, ResponseFormat responseFormat,
                                boolean freeJsonLayout) implements GenerationFields {

    public CompletionRequest {
        prompts = List.copyOf(prompts);
        stop = List.copyOf(stop);
    }

    @Override
    public Integer maxTokensCap() {
        return maxTokensGiven ? maxTokens : null;
    }

    /** OpenAI's default of 16, which, unlike a cap the client set, is lowered to fit the context. */
    @Override
    public int maxTokensWithoutCap() {
        return maxTokens;
    }

    @Override
    public int logprobCount() {
        return logprobs;
    }

    public boolean wantsLogprobs() {
        return logprobs >= 0;
    }
}
