package dev.inferd.server.anthropic;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The beta features a Messages request opts into with {@code anthropic-beta} headers (comma-separated names, in
 * one header or several). Only the ones that change what a request may ask are read; the rest are ignored.
 */
public record AnthropicBetas(Set<String> names) {
    public static final String HEADER = "anthropic-beta";
    /** {@code thinking.budget_tokens} may exceed {@code max_tokens}: the budget spans a turn's thinking. */
    public static final String INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14";
    public static final AnthropicBetas NONE = new AnthropicBetas(Set.of());

    public AnthropicBetas {
        names = Set.copyOf(names);
    }

    /** The names in a request's {@code anthropic-beta} header values. */
    public static AnthropicBetas of(List<String> headerValues) {
        return new AnthropicBetas(headerValues.stream().flatMap(v -> Arrays.stream(v.split(",")))
                .map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toSet()));
    }

    public boolean interleavedThinking() {
        return names.contains(INTERLEAVED_THINKING);
    }
}
