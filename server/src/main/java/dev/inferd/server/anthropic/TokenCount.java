package dev.inferd.server.anthropic;

/** The answer of {@code POST /v1/messages/count_tokens}. */
public record TokenCount(int inputTokens) {
}
