package dev.inferd.engine.chat;

import java.util.List;
import java.util.Map;

/**
 * What a request adds to its conversation when the prompt is rendered.
 *
 * @param tools the function tools offered (empty for none); how they reach the model depends on
 *              the template, see {@link ChatFormat}
 * @param enableThinking the {@code enable_thinking} template variable (Qwen3), or null to leave it unset
 * @param variables further template variables ({@code date_string}, {@code builtin_tools},
 *                  {@code tools_in_user_message}, ...); they override the ones set from the
 *                  fields above
 */
public record PromptOptions(List<ToolDefinition> tools, Boolean enableThinking, Map<String, Object> variables) {
    public static final PromptOptions NONE = new PromptOptions(List.of(), null, Map.of());

    public PromptOptions {
        tools = tools == null ? List.of() : List.copyOf(tools);
        variables = variables == null ? Map.of() : Map.copyOf(variables);
    }

    public static PromptOptions withTools(List<ToolDefinition> tools) {
        return new PromptOptions(tools, null, Map.of());
    }
}
