package dev.inferd.engine.generate;

import java.util.List;

/**
 * A token with its natural-log probability under the model's distribution (before temperature,
 * penalties and nucleus cut-off, as OpenAI reports them).
 *
 * @param text the token's text ({@code bytes} decoded; may hold U+FFFD for a partial UTF-8 sequence)
 * @param bytes the raw UTF-8 bytes the token stands for
 * @param top the most likely alternatives at this position, best first; empty for the alternatives themselves
 */
public record TokenLogprob(int token, String text, byte[] bytes, float logprob, List<TokenLogprob> top) {
}
