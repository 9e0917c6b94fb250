package dev.inferd.engine.chat;

/**
 * A conversation rendered into prompt text.
 *
 * @param opensReasoning the prompt ends inside an open thinking block (its last {@code <think>} is not
 *                       closed, as DeepSeek-R1's generation prompt does), so the output starts as reasoning
 */
public record RenderedPrompt(String text, boolean opensReasoning) {
}
