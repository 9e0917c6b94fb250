package dev.inferd.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.ToolDefinition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** {@code response_format}, {@code tools}, {@code tool_choice}, {@code parallel_tool_calls} and template variables. */
public final class StructuredOutputFields {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    private StructuredOutputFields() {
    }

    static ResponseFormat responseFormat(Fields f) {
        return f.node("response_format").map(format -> {
            Fields rf = Fields.ofObject(format, "response_format");
            String type = rf.requiredString("type");
            return switch (type) {
                case "text" -> ResponseFormat.TEXT;
                case "json_object" -> new ResponseFormat.JsonObject();
                case "json_schema" -> jsonSchema(Fields.ofObject(rf.required("json_schema"), "response_format.json_schema"));
                default -> throw ApiError.invalid("response_format.type", "Invalid value for 'response_format.type': '"
                        + type + "'. Supported values are: 'text', 'json_object' and 'json_schema'.");
            };
        }).orElse(ResponseFormat.TEXT);
    }

    /**
     * The extension {@code json_layout}: {@code "compact"} (the default: one space after {@code :} and
     * {@code ,}, nothing else) or {@code "free"} (bounded blanks and line breaks wherever JSON allows them).
     */
    static boolean freeJsonLayout(Fields f) {
        return f.string("json_layout").map(layout -> switch (layout) {
            case "compact" -> false;
            case "free" -> true;
            default -> throw ApiError.invalid("json_layout", "Invalid value for 'json_layout': '" + layout
                    + "'. Supported values are: 'compact' and 'free'.");
        }).orElse(false);
    }

    private static ResponseFormat jsonSchema(Fields js) {
        String name = js.requiredString("name");
        checkName(name, "response_format.json_schema.name");
        Object schema = js.node("schema").map(s -> {
            if (!s.isObject() && !s.isBoolean()) {
                throw ApiError.invalidType("response_format.json_schema.schema", "an object", Fields.describe(s));
            }
            return tree(s);
        }).orElse(null);
        return new ResponseFormat.JsonSchema(name, schema, js.bool("strict", false));
    }

    static ChatTools tools(Fields f) {
        List<ToolDefinition> definitions = new ArrayList<>();
        Map<String, Object> parameters = new HashMap<>();
        f.node("tools").ifPresent(tools -> {
            if (!tools.isArray()) throw ApiError.invalidType("tools", "an array", Fields.describe(tools));
            for (int i = 0; i < tools.size(); i++) {
                String path = "tools[" + i + "]";
                Fields tool = Fields.ofObject(tools.get(i), path);
                String type = tool.requiredString("type");
                if (!"function".equals(type)) {
                    throw ApiError.unsupported(path + ".type", "Tools of type '" + type
                            + "' are not supported; only 'function' tools are.");
                }
                Fields function = Fields.ofObject(tool.required("function"), path + ".function");
                String name = function.requiredString("name");
                checkName(name, path + ".function.name");
                if (parameters.containsKey(name)) {
                    throw ApiError.invalid(path + ".function.name", "Invalid '" + path + ".function.name': the tool '"
                            + name + "' is defined twice.");
                }
                JsonNode params = function.node("parameters").orElse(null);
                if (params != null && !params.isObject()) {
                    throw ApiError.invalidType(path + ".function.parameters", "an object", Fields.describe(params));
                }
                Object schema = params == null ? emptyObjectSchema() : tree(params);
                parameters.put(name, schema);
                definitions.add(new ToolDefinition(name, function.string("description").orElse(null),
                        params == null ? null : params.toString()));
            }
        });
        Set<String> names = new LinkedHashSet<>(definitions.stream().map(ToolDefinition::name).toList());
        boolean parallel = f.bool("parallel_tool_calls", true);
        JsonNode choice = f.node("tool_choice").orElse(null);
        if (choice == null) {
            var mode = definitions.isEmpty() ? ChatTools.Choice.NONE : ChatTools.Choice.AUTO;
            return new ChatTools(definitions, parameters, mode, List.copyOf(names), parallel);
        }
        if (choice.isTextual()) {
            var mode = switch (choice.textValue()) {
                case "none" -> ChatTools.Choice.NONE;
                case "auto" -> ChatTools.Choice.AUTO;
                case "required" -> ChatTools.Choice.REQUIRED;
                default -> throw ApiError.invalid("tool_choice", "Invalid value for 'tool_choice': '" + choice.textValue()
                        + "'. Supported values are: 'none', 'auto' and 'required'.");
            };
            if (mode == ChatTools.Choice.REQUIRED && definitions.isEmpty()) {
                throw ApiError.invalid("tool_choice", "Invalid value for 'tool_choice': 'required' needs 'tools'.");
            }
            return new ChatTools(definitions, parameters, mode, List.copyOf(names), parallel);
        }
        Fields c = Fields.ofObject(choice, "tool_choice");
        String type = c.requiredString("type");
        switch (type) {
            case "function" -> {
                String name = Fields.ofObject(c.required("function"), "tool_choice.function").requiredString("name");
                requireKnown(names, name, "tool_choice.function.name");
                return new ChatTools(definitions, parameters, ChatTools.Choice.REQUIRED, List.of(name), false);
            }
            case "allowed_tools" -> {
                Fields allowed = Fields.ofObject(c.required("allowed_tools"), "tool_choice.allowed_tools");
                String mode = allowed.string("mode").orElse("auto");
                JsonNode list = allowed.required("tools");
                if (!list.isArray() || list.isEmpty()) {
                    throw ApiError.invalidType("tool_choice.allowed_tools.tools", "a non-empty array", Fields.describe(list));
                }
                List<String> chosen = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    String p = "tool_choice.allowed_tools.tools[" + i + "]";
                    Fields t = Fields.ofObject(list.get(i), p);
                    String name = t.node("function").map(fn -> Fields.ofObject(fn, p + ".function").requiredString("name"))
                            .orElseGet(() -> t.requiredString("name"));
                    requireKnown(names, name, p);
                    chosen.add(name);
                }
                var m = switch (mode) {
                    case "auto" -> ChatTools.Choice.AUTO;
                    case "required" -> ChatTools.Choice.REQUIRED;
                    default -> throw ApiError.invalid("tool_choice.allowed_tools.mode",
                            "Invalid value for 'tool_choice.allowed_tools.mode': '" + mode
                                    + "'. Supported values are: 'auto' and 'required'.");
                };
                return new ChatTools(definitions, parameters, m, chosen, parallel);
            }
            default -> throw ApiError.unsupported("tool_choice.type", "Invalid value for 'tool_choice.type': '" + type
                    + "'. Supported values are: 'function' and 'allowed_tools'.");
        }
    }

    /**
     * {@code chat_template_kwargs}, an extension (vLLM's name): extra variables for the chat template,
     * {@code enable_thinking} among them.
     */
    static Map<String, Object> templateVariables(Fields f) {
        return f.node("chat_template_kwargs").map(node -> {
            if (!node.isObject()) throw ApiError.invalidType("chat_template_kwargs", "an object", Fields.describe(node));
            @SuppressWarnings("unchecked")
            Map<String, Object> vars = (Map<String, Object>) tree(node);
            return vars;
        }).orElse(Map.of());
    }

    private static void requireKnown(Set<String> names, String name, String param) {
        if (!names.contains(name)) {
            throw ApiError.invalid(param, "Invalid value for '" + param + "': no tool named '" + name
                    + "' is in 'tools'.");
        }
    }

    public static void checkName(String name, String param) {
        if (!NAME.matcher(name).matches()) {
            throw ApiError.invalid(param, "Invalid '" + param + "': '" + name
                    + "'. Names may contain only a-z, A-Z, 0-9, underscores and dashes, at most 64 characters.");
        }
    }

    public static Map<String, Object> emptyObjectSchema() {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        return schema;
    }

    /** A JSON node as maps (key order kept), lists and scalars, as the schema compiler reads schemas. */
    public static Object tree(JsonNode node) {
        return WireJson.mapper().convertValue(node, Object.class);
    }
}
