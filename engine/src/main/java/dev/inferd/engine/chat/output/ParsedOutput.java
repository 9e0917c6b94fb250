package dev.inferd.engine.chat.output;

import java.util.List;

/**
 * A whole output split into its channels.
 *
 * @param content the text for the user; null when there is none (e.g. only tool calls, or only whitespace beside them)
 * @param reasoning the thinking text, or null when there was none
 */
public record ParsedOutput(String content, String reasoning, List<ParsedToolCall> toolCalls) {
    public ParsedOutput {
        toolCalls = List.copyOf(toolCalls);
    }
}
