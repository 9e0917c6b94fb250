package dev.inferd.server.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.ToolDefinition;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.Fields;
import dev.inferd.server.openai.WireJson;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code tools} and {@code tool_choice}. Custom tools (no {@code type}, or {@code custom}) are offered to the
 * model with their {@code input_schema}. Anthropic's versioned tools ({@code web_search_20250305},
 * {@code bash_20250124}, {@code text_editor_20250728}, ...) are accepted and left out: the server tools run at
 * Anthropic, and the client-run ones have no schema in the request that a local model could follow. A reply
 * never calls them, so a client completes its turn with the tools it defined.
 */
final class ToolFields {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,128}");

    private ToolFields() {
    }

    static ChatTools tools(Fields f) {
        List<ToolDefinition> definitions = new ArrayList<>();
        Map<String, Object> schemas = new HashMap<>();
        Set<String> leftOut = new HashSet<>();
        f.node("tools").ifPresent(tools -> {
            if (!tools.isArray()) throw ApiError.invalidType("tools", "an array", Fields.describe(tools));
            for (int i = 0; i < tools.size(); i++) {
                String path = "tools[" + i + "]";
                Fields tool = Fields.ofObject(tools.get(i), path);
                String type = tool.string("type").orElse("custom");
                String name = tool.requiredString("name");
                if (!"custom".equals(type)) {
                    leftOut.add(name);
                    continue;
                }
                if (!NAME.matcher(name).matches()) {
                    throw ApiError.invalid(path + ".name", "Invalid '" + path + ".name': '" + name
                            + "'. Names may contain only a-z, A-Z, 0-9, underscores and dashes, at most 128 characters.");
                }
                if (schemas.containsKey(name)) {
                    throw ApiError.invalid(path + ".name", "Invalid '" + path + ".name': the tool '" + name
                            + "' is defined twice.");
                }
                JsonNode schema = tool.required("input_schema");
                if (!schema.isObject()) {
                    throw ApiError.invalidType(path + ".input_schema", "an object", Fields.describe(schema));
                }
                schemas.put(name, WireJson.mapper().convertValue(schema, Object.class));
                definitions.add(new ToolDefinition(name, tool.string("description").orElse(null), schema.toString()));
            }
        });
        List<String> names = definitions.stream().map(ToolDefinition::name).toList();
        JsonNode choiceNode = f.node("tool_choice").orElse(null);
        if (choiceNode == null) {
            return new ChatTools(definitions, schemas, definitions.isEmpty() ? ChatTools.Choice.NONE : ChatTools.Choice.AUTO,
                    names, true);
        }
        Fields choice = Fields.ofObject(choiceNode, "tool_choice");
        String type = choice.requiredString("type");
        boolean parallel = !choice.bool("disable_parallel_tool_use", false);
        return switch (type) {
            case "auto" -> new ChatTools(definitions, schemas,
                    definitions.isEmpty() ? ChatTools.Choice.NONE : ChatTools.Choice.AUTO, names, parallel);
            case "none" -> new ChatTools(definitions, schemas, ChatTools.Choice.NONE, names, parallel);
            case "any" -> {
                if (definitions.isEmpty()) {
                    throw ApiError.invalid("tool_choice", "Invalid 'tool_choice': 'any' needs at least one custom tool in 'tools'.");
                }
                yield new ChatTools(definitions, schemas, ChatTools.Choice.REQUIRED, names, parallel);
            }
            case "tool" -> {
                String name = choice.requiredString("name");
                if (leftOut.contains(name)) {
                    throw ApiError.unsupported("tool_choice.name", "Invalid 'tool_choice.name': '" + name
                            + "' is a tool this server cannot run; only custom tools can be forced.");
                }
                if (!names.contains(name)) {
                    throw ApiError.invalid("tool_choice.name", "Invalid 'tool_choice.name': no tool named '" + name
                            + "' is in 'tools'.");
                }
                yield new ChatTools(definitions, schemas, ChatTools.Choice.REQUIRED, List.of(name), parallel);
            }
            default -> throw ApiError.invalid("tool_choice.type", "Invalid value for 'tool_choice.type': '" + type
                    + "'. Supported values are: 'auto', 'any', 'tool' and 'none'.");
        };
    }
}
