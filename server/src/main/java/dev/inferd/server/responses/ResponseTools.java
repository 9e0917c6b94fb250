package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.ToolDefinition;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.Fields;
import dev.inferd.server.openai.StructuredOutputFields;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tools of a Responses request as the model sees them. Function tools are functions; the
 * functions and custom tools inside a {@code namespace} tool are functions named
 * {@code namespace__name}; a {@code custom} tool (free-form input) is a function taking one string,
 * {@code input}. Hosted tools, which only OpenAI's servers run ({@code web_search}, {@code file_search},
 * {@code mcp}, ...), are accepted and not shown to the model: a client such as Codex sends them by
 * default and still completes its turn with the tools the model can call. See docs/responses.md.
 */
public record ResponseTools(ChatTools chat, Map<String, Callable> byModelName) {

    /** What the model calls by one name: a function, possibly in a namespace, or a custom tool. */
    public record Callable(String namespace, String name, boolean custom) {
    }

    static final String NAMESPACE_SEPARATOR = "__";

    static final Set<String> HOSTED = Set.of("web_search", "web_search_preview", "web_search_preview_2025_03_11",
            "web_search_2025_08_26", "file_search", "image_generation", "code_interpreter", "computer",
            "computer_use", "computer_use_preview", "mcp", "local_shell", "shell", "apply_patch", "tool_search");

    public static final ResponseTools NONE = new ResponseTools(ChatTools.NONE, Map.of());

    /** The name the model knows a callable by. */
    static String modelName(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? name : namespace + NAMESPACE_SEPARATOR + name;
    }

    /** What the model's call of {@code modelName} is on the wire; a name outside the tools is a plain function. */
    public Callable callable(String modelName) {
        Callable c = byModelName.get(modelName);
        return c != null ? c : new Callable(null, modelName, false);
    }

    static ResponseTools parse(Fields f) {
        List<ToolDefinition> definitions = new ArrayList<>();
        Map<String, Object> parameters = new HashMap<>();
        Map<String, Callable> callables = new LinkedHashMap<>();
        f.node("tools").ifPresent(tools -> {
            if (!tools.isArray()) throw ApiError.invalidType("tools", "an array", Fields.describe(tools));
            for (int i = 0; i < tools.size(); i++) {
                String path = "tools[" + i + "]";
                Fields tool = Fields.ofObject(tools.get(i), path);
                String type = tool.requiredString("type");
                switch (type) {
                    case "function", "custom" -> add(tool, path, null, "custom".equals(type), definitions, parameters,
                            callables);
                    case "namespace" -> {
                        String namespace = tool.requiredString("name");
                        StructuredOutputFields.checkName(namespace, path + ".name");
                        JsonNode members = tool.required("tools");
                        if (!members.isArray()) {
                            throw ApiError.invalidType(path + ".tools", "an array", Fields.describe(members));
                        }
                        for (int j = 0; j < members.size(); j++) {
                            String memberPath = path + ".tools[" + j + "]";
                            Fields member = Fields.ofObject(members.get(j), memberPath);
                            String memberType = member.requiredString("type");
                            if (!memberType.equals("function") && !memberType.equals("custom")) {
                                throw ApiError.invalid(memberPath + ".type", "Invalid value for '" + memberPath
                                        + ".type': '" + memberType + "'. Supported values are: 'function' and 'custom'.");
                            }
                            add(member, memberPath, namespace, memberType.equals("custom"), definitions, parameters,
                                    callables);
                        }
                    }
                    default -> {
                        if (!HOSTED.contains(type)) {
                            throw ApiError.invalid(path + ".type", "Invalid value for '" + path + ".type': '" + type
                                    + "'. Supported values are: 'function', 'custom', 'namespace' and the hosted tool types.");
                        }
                    }
                }
            }
        });
        boolean parallel = f.bool("parallel_tool_calls", true);
        List<String> names = List.copyOf(callables.keySet());
        JsonNode choice = f.node("tool_choice").orElse(null);
        ChatTools.Choice mode = definitions.isEmpty() ? ChatTools.Choice.NONE : ChatTools.Choice.AUTO;
        List<String> allowed = names;
        if (choice != null && choice.isTextual()) {
            mode = switch (choice.textValue()) {
                case "none" -> ChatTools.Choice.NONE;
                case "auto" -> mode;
                case "required" -> ChatTools.Choice.REQUIRED;
                default -> throw ApiError.invalid("tool_choice", "Invalid value for 'tool_choice': '"
                        + choice.textValue() + "'. Supported values are: 'none', 'auto' and 'required'.");
            };
            if (mode == ChatTools.Choice.REQUIRED && definitions.isEmpty()) {
                throw ApiError.invalid("tool_choice", "Invalid value for 'tool_choice': 'required' needs function tools.");
            }
        } else if (choice != null) {
            Fields c = Fields.ofObject(choice, "tool_choice");
            String type = c.requiredString("type");
            switch (type) {
                case "function", "custom" -> {
                    String name = modelName(c.string("namespace").orElse(null), c.requiredString("name"));
                    requireKnown(callables, name, "tool_choice.name");
                    mode = ChatTools.Choice.REQUIRED;
                    allowed = List.of(name);
                    parallel = false;
                }
                case "allowed_tools" -> {
                    String m = c.string("mode").orElse("auto");
                    JsonNode list = c.required("tools");
                    if (!list.isArray() || list.isEmpty()) {
                        throw ApiError.invalidType("tool_choice.tools", "a non-empty array", Fields.describe(list));
                    }
                    List<String> chosen = new ArrayList<>();
                    for (int i = 0; i < list.size(); i++) {
                        String p = "tool_choice.tools[" + i + "]";
                        Fields t = Fields.ofObject(list.get(i), p);
                        if (HOSTED.contains(t.string("type").orElse("function"))) continue;
                        String name = modelName(t.string("namespace").orElse(null), t.requiredString("name"));
                        requireKnown(callables, name, p + ".name");
                        chosen.add(name);
                    }
                    mode = switch (m) {
                        case "auto" -> chosen.isEmpty() ? ChatTools.Choice.NONE : ChatTools.Choice.AUTO;
                        case "required" -> ChatTools.Choice.REQUIRED;
                        default -> throw ApiError.invalid("tool_choice.mode", "Invalid value for 'tool_choice.mode': '"
                                + m + "'. Supported values are: 'auto' and 'required'.");
                    };
                    if (mode == ChatTools.Choice.REQUIRED && chosen.isEmpty()) {
                        throw ApiError.unsupported("tool_choice.tools",
                                "Only function and custom tools can be required on this server.");
                    }
                    allowed = chosen;
                }
                default -> throw ApiError.unsupported("tool_choice.type", "Invalid value for 'tool_choice.type': '"
                        + type + "'. This server runs no hosted tools; supported values are: 'function', 'custom' "
                        + "and 'allowed_tools'.");
            }
        }
        return new ResponseTools(new ChatTools(definitions, parameters, mode, allowed, parallel), Map.copyOf(callables));
    }

    private static void add(Fields tool, String path, String namespace, boolean custom, List<ToolDefinition> definitions,
                            Map<String, Object> parameters, Map<String, Callable> callables) {
        String name = tool.requiredString("name");
        StructuredOutputFields.checkName(name, path + ".name");
        String modelName = modelName(namespace, name);
        if (callables.containsKey(modelName)) {
            throw ApiError.invalid(path + ".name", "Invalid '" + path + ".name': the tool '" + modelName
                    + "' is defined twice.");
        }
        Object schema;
        String schemaJson;
        if (custom) {
            schema = customInputSchema();
            schemaJson = CUSTOM_INPUT_SCHEMA;
        } else {
            JsonNode params = tool.node("parameters").orElse(null);
            if (params != null && !params.isObject()) {
                throw ApiError.invalidType(path + ".parameters", "an object", Fields.describe(params));
            }
            tool.bool("strict"); // checked as a boolean; schemas are enforced either way
            schema = params == null ? StructuredOutputFields.emptyObjectSchema() : StructuredOutputFields.tree(params);
            schemaJson = params == null ? null : params.toString();
        }
        String description = tool.string("description").orElse(null);
        definitions.add(new ToolDefinition(modelName, description, schemaJson));
        parameters.put(modelName, schema);
        callables.put(modelName, new Callable(namespace, name, custom));
    }

    private static final String CUSTOM_INPUT_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"input\":{\"type\":\"string\"}},\"required\":[\"input\"]}";

    private static Object customInputSchema() {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("type", "string");
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("input", input);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", List.of("input"));
        return schema;
    }

    private static void requireKnown(Map<String, Callable> callables, String name, String param) {
        if (!callables.containsKey(name)) {
            throw ApiError.invalid(param, "Invalid value for '" + param + "': no function or custom tool named '"
                    + name + "' is in 'tools'.");
        }
    }
}
