package dev.inferd.server.openai;

import dev.inferd.engine.chat.ToolDefinition;

import java.util.List;
import java.util.Map;

/**
 * The tools a chat request offers and how the model may use them.
 *
 * @param definitions     the function tools, in request order, as the template shows them
 * @param parameters      each function's {@code parameters} schema as a plain Java tree, by name
 * @param choice          whether the model may, must, or must not call
 * @param allowed         the names the model may call (all tools unless {@code allowed_tools} or a named choice narrows them)
 * @param parallelCalls   whether one reply may hold more than one call
 */
public record ChatTools(List<ToolDefinition> definitions, Map<String, Object> parameters, Choice choice,
                        List<String> allowed, boolean parallelCalls) {

    public static final ChatTools NONE = new ChatTools(List.of(), Map.of(), Choice.NONE, List.of(), true);

    public enum Choice { NONE, AUTO, REQUIRED }

    public ChatTools {
        definitions = List.copyOf(definitions);
        parameters = Map.copyOf(parameters);
        allowed = List.copyOf(allowed);
    }

    /** Whether the model's output is read for calls. */
    public boolean parsesCalls() {
        return choice != Choice.NONE && !definitions.isEmpty();
    }

    /** Whether the reply must be a call, constrained from its first token. */
    public boolean forcesCall() {
        return choice == Choice.REQUIRED && !definitions.isEmpty();
    }
}
