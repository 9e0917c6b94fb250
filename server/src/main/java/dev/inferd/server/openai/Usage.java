package dev.inferd.server.openai;

import dev.inferd.engine.generate.GenerationResult;

/** Token counts; the details objects are there because some clients read them unconditionally. */
public record Usage(int promptTokens, int completionTokens, int totalTokens,
                    PromptDetails promptTokensDetails, CompletionDetails completionTokensDetails) {

    public record PromptDetails(int cachedTokens) {
    }

    public record CompletionDetails(int reasoningTokens) {
    }

    public static Usage of(int promptTokens, int completionTokens) {
        return of(promptTokens, completionTokens, 0);
    }

    /** @param cachedTokens prompt tokens whose keys and values came from the prefix cache */
    public static Usage of(int promptTokens, int completionTokens, int cachedTokens) {
        return new Usage(promptTokens, completionTokens, promptTokens + completionTokens,
                new PromptDetails(cachedTokens), new CompletionDetails(0));
    }

    public static Usage of(GenerationResult result) {
        return of(result.promptTokens(), result.completionTokens(), result.cachedPromptTokens());
    }

    public Usage plus(Usage other) {
        return of(promptTokens + other.promptTokens, completionTokens + other.completionTokens,
                promptTokensDetails.cachedTokens() + other.promptTokensDetails.cachedTokens());
    }
}
