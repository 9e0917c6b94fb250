package dev.inferd.server.anthropic;

import dev.inferd.engine.generate.GenerationResult;

/**
 * Token counts in Anthropic's terms: {@code input_tokens} are the prompt tokens computed for this request,
 * {@code cache_read_input_tokens} the ones whose keys and values the prefix cache supplied (their sum is the
 * prompt); nothing is written to a cache on request, so {@code cache_creation_input_tokens} is 0.
 */
public record MessageUsage(int inputTokens, int outputTokens, int cacheCreationInputTokens, int cacheReadInputTokens) {

    public static MessageUsage of(int promptTokens, int cachedPromptTokens, int outputTokens) {
        return new MessageUsage(promptTokens - cachedPromptTokens, outputTokens, 0, cachedPromptTokens);
    }

    public static MessageUsage of(GenerationResult result) {
        return of(result.promptTokens(), result.cachedPromptTokens(), result.completionTokens());
    }
}
