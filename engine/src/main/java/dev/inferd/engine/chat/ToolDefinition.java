package dev.inferd.engine.chat;

import java.util.Objects;

/**
 * A function tool offered to the model.
 *
 * @param description may be null
 * @param parametersJson the JSON Schema of the arguments as JSON text, or null for none
 */
public record ToolDefinition(String name, String description, String parametersJson) {
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
    }
}
