package dev.inferd.server.conversation;

/**
 * A tool call the model wrote, parsed.
 *
 * @param index     its number among the choice's calls, from 0
 * @param id        the id the server gave it ({@code call_...}), the same in every event about it
 * @param arguments the arguments' JSON text
 * @param complete  false when the output ended inside the call (its arguments are cut off)
 */
public record ToolCallOutput(int index, String id, String name, String arguments, boolean complete) {
}
