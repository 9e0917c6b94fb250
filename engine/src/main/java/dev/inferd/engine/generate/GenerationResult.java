package dev.inferd.engine.generate;

/**
 * Token counts of a finished (or cancelled) generation.
 *
 * @param promptTokens tokens in the prompt, counted once whatever {@code n} was
 * @param completionTokens generated tokens summed over all choices
 */
public record GenerationResult(int promptTokens, int completionTokens) {
    public int totalTokens() {
        return promptTokens + completionTokens;
    }
}
