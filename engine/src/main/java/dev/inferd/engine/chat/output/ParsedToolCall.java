package dev.inferd.engine.chat.output;

/**
 * A tool call found in the output.
 *
 * @param arguments the arguments JSON text, exactly the concatenation of the streamed fragments
 * @param complete false when the output ended inside the call (e.g. at {@code max_tokens})
 */
public record ParsedToolCall(int index, String name, String arguments, boolean complete) {
}
