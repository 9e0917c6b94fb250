package dev.inferd.engine.generate;

/**
 * Token counts of a finished (or cancelled) generation.
 *
 * @param promptTokens tokens in the prompt, counted once whatever {@code n} was
 * @param completionTokens generated tokens summed over all choices
 * @param cachedPromptTokens prompt tokens whose keys and values were reused from an earlier request
 */
public record GenerationResult(int promptTokens, int completionTokens, int cachedPromptTokens) {

    public GenerationResult(int promptTokens, int completionTokens) {
        this(promptTokens, completionTokens, 0);
    }

    public int totalTokens() {
        return promptTokens + completionTokens;
    }
}
