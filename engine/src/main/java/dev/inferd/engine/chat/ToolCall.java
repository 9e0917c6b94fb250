package dev.inferd.engine.chat;

import java.util.Objects;

/**
 * A function call an assistant made, as OpenAI's wire carries it.
 *
 * @param arguments the arguments as JSON text (normally an object)
 */
public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
