package dev.inferd.server.openai;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.GrammarConstraint;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.sample.TokenConstraint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The grammar a request's output must follow: its {@code response_format}, or a forced tool call.
 * A forced call ({@code tool_choice} {@code required} or a named function) is the bare JSON call
 * {@code {"name": ..., "arguments": {...}}} of the generic call form, its arguments constrained to
 * the function's {@code parameters} from the first token. Compiled grammars are cached server-wide.
 */
public final class OutputConstraints {

    /**
     * Room for a newline and an indent between JSON tokens, not more: a weak model otherwise spends
     * its token budget on blanks.
     */
    private static final int MAX_WHITESPACE = 4;
    private static final GrammarCache GRAMMARS = new GrammarCache(256, new JsonSchemaCompiler.Options(MAX_WHITESPACE));

    private OutputConstraints() {
    }

    /** The constraint of a chat request, or null when its output is free. */
    public static TokenConstraint.Factory forChat(ChatRequest request, TextGenerator generator) {
        ChatTools tools = request.tools();
        if (tools.forcesCall()) {
            if (!(request.responseFormat() instanceof ResponseFormat.Text)) {
                throw ApiError.invalid("response_format", "Invalid 'response_format': a JSON response format cannot "
                        + "be combined with a 'tool_choice' that forces a call.");
            }
            return constraint(forcedCall(tools), generator, "tools");
        }
        return forFormat(request.responseFormat(), generator, "response_format");
    }

    /** The constraint of a {@code response_format}, or null for text. */
    public static TokenConstraint.Factory forFormat(ResponseFormat format, TextGenerator generator, String param) {
        return switch (format) {
            case ResponseFormat.Text t -> null;
            case ResponseFormat.JsonObject o -> constraint(GRAMMARS.anyObject(), generator, param);
            case ResponseFormat.JsonSchema s -> constraint(s.schema() == null ? GRAMMARS.anyValue()
                    : compile(s.schema(), param + ".json_schema.schema"), generator, param);
        };
    }

    private static Grammar forcedCall(ChatTools tools) {
        List<Object> calls = new ArrayList<>();
        Map<String, Object> defs = new LinkedHashMap<>();
        for (String name : tools.allowed()) {
            int i = tools.definitions().stream().map(d -> d.name()).toList().indexOf(name);
            Object parameters = tools.parameters().get(name);
            compile(parameters, "tools[" + i + "].function.parameters");
            if (parameters instanceof Map<?, ?> p) {
                // "#/$defs/..." references resolve against the root: the call object's root keeps them.
                for (String key : List.of("$defs", "definitions")) {
                    if (p.get(key) instanceof Map<?, ?> d) {
                        d.forEach((k, v) -> defs.put(key + "/" + k, v));
                    }
                }
            }
            Map<String, Object> call = new LinkedHashMap<>();
            call.put("type", "object");
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("name", Map.of("const", name));
            properties.put("arguments", parameters);
            call.put("properties", properties);
            call.put("required", List.of("name", "arguments"));
            calls.add(call);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        if (calls.size() == 1) {
            @SuppressWarnings("unchecked")
            Map<String, Object> only = (Map<String, Object>) calls.getFirst();
            root.putAll(only);
        } else {
            root.put("oneOf", calls);
        }
        for (var e : defs.entrySet()) {
            String[] keyAndName = e.getKey().split("/", 2);
            @SuppressWarnings("unchecked")
            Map<String, Object> section = (Map<String, Object>) root.computeIfAbsent(keyAndName[0], k -> new LinkedHashMap<>());
            section.put(keyAndName[1], e.getValue());
        }
        return compile(root, "tools");
    }

    private static Grammar compile(Object schema, String param) {
        try {
            return GRAMMARS.schema(schema);
        } catch (IllegalArgumentException e) {
            // UnsupportedSchemaException's message names the keyword and its JSON pointer.
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }

    private static TokenConstraint.Factory constraint(Grammar grammar, TextGenerator generator, String param) {
        TokenVocabulary vocabulary = generator.vocabulary();
        if (vocabulary == null) {
            throw ApiError.unsupported(param, "This model cannot constrain its output.");
        }
        return GrammarConstraint.factory(grammar, vocabulary);
    }
}
