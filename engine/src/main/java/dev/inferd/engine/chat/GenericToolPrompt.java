package dev.inferd.engine.chat;

import dev.inferd.engine.chat.jinja.Json;

import java.util.List;
import java.util.Map;

/**
 * The system-prompt text that offers tools to a model whose template has no tool support (or a
 * call syntax that is not parsed), and the text form of past calls and results for templates that
 * cannot render them. The reply it asks for is what
 * {@link dev.inferd.engine.chat.output.ToolCallFormat#GENERIC} parses. For one tool:
 *
 * <pre>
 * # Tools
 *
 * You can call these functions; "parameters" is the JSON Schema of each one's arguments:
 * {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", ...}}
 *
 * To call functions, reply with only a JSON object of this form, with nothing before or after it:
 * {"tool_calls": [{"name": "&lt;function name&gt;", "arguments": {&lt;argument name&gt;: &lt;value&gt;, ...}}]}
 * Put several calls in the list to make them at once. The results come back in the next message.
 * When no function is needed, reply to the user in plain text.</pre>
 */
public final class GenericToolPrompt {
    private GenericToolPrompt() {
    }

    /** @param functions each {@code {name, description, parameters}} as the tools variable's {@code function} entries */
    public static String describe(List<Map<String, Object>> functions) {
        var sb = new StringBuilder("# Tools\n\nYou can call these functions; \"parameters\" is the JSON Schema of each one's arguments:\n");
        for (Map<String, Object> function : functions) {
            sb.append(Json.write(function)).append('\n');
        }
        sb.append("""

                To call functions, reply with only a JSON object of this form, with nothing before or after it:
                {"tool_calls": [{"name": "<function name>", "arguments": {<argument name>: <value>, ...}}]}
                Put several calls in the list to make them at once. The results come back in the next message.
                When no function is needed, reply to the user in plain text.""");
        return sb.toString();
    }

    /** An assistant turn's calls written the way the prompt above asks for them. */
    static String calls(List<Map<String, Object>> calls) {
        return Json.write(Map.of("tool_calls", calls));
    }

    /** A tool result as the text of a user turn. */
    static String result(String functionName, String content) {
        return "Result of " + (functionName == null ? "the function call" : functionName) + ":\n" + content;
    }
}
