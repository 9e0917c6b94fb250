package dev.inferd.engine.chat.output;

import dev.inferd.engine.grammar.Expr;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.grammar.Trigger;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Grammars of tool calls in a {@link ToolCallFormat}'s own syntax, so a constrained model writes
 * the form it was trained on and {@link ChatOutputParser} reads it back: each call's name is one of
 * the allowed functions and its arguments validate against that function's {@code parameters}.
 * A marker that the vocabulary has as a special token ({@code <|python_tag|>}, {@code [TOOL_CALLS]},
 * Qwen's {@code <tool_call>}) may be written as that token or as its text. JSON whitespace is
 * bounded as the cache's compiler options say. Compiled grammars are cached in the given cache.
 */
public final class ToolCallGrammar {

    /** A function the model may call, with its {@code parameters} schema (null: any object). */
    public record Tool(String name, Object parameters) {
    }

    private ToolCallGrammar() {
    }

    /**
     * A reply that is only calls (one, or with {@code parallel} one or more), from its first token:
     * for {@code tool_choice} {@code required} or a named function.
     *
     * @throws dev.inferd.engine.grammar.json.UnsupportedSchemaException for a schema that cannot be enforced
     */
    public static Grammar forced(ToolCallFormat format, List<Tool> tools, boolean parallel, GrammarCache cache) {
        return cache.wrapped("forced " + format + (parallel ? " parallel" : " single"), callSchema(format, tools),
                call -> forcedSyntax(format, call, parallel, Blanks.of(cache.options())));
    }

    /**
     * The calls a free reply turns into at {@link #trigger(ToolCallFormat)}: the rest of the output
     * from there, one call or (with {@code parallel}) several, then the end.
     */
    public static Grammar afterTrigger(ToolCallFormat format, List<Tool> tools, boolean parallel, GrammarCache cache) {
        return cache.wrapped("triggered " + format + (parallel ? " parallel" : " single"), callSchema(format, tools),
                call -> triggeredSyntax(format, call, parallel, Blanks.of(cache.options())));
    }

    /**
     * As {@link #trigger(ToolCallFormat)}, for a reply whose thinking block is split off: a marker
     * inside {@code <think>...</think>} is thinking, not a call.
     *
     * @param startsInThinking the prompt opened the thinking block
     */
    public static Trigger trigger(ToolCallFormat format, boolean startsInThinking) {
        return trigger(format).quietBetween(ReasoningSplitter.OPEN, ReasoningSplitter.CLOSE, startsInThinking);
    }

    /** Where a free reply of this format becomes calls: its opening marker, or a reply that opens as a JSON call. */
    public static Trigger trigger(ToolCallFormat format) {
        return switch (format) {
            case LLAMA3 -> new Trigger(List.of(format.openingMarker()), List.of("{\"name\""));
            case HERMES, MISTRAL -> new Trigger(List.of(format.openingMarker()), List.of());
            case GENERIC -> new Trigger(List.of(), List.of("{\"tool_calls\"", "{\"name\""));
        };
    }

    /**
     * Blanks of the call syntax: {@code inside} and after separators as the JSON layout has them, and
     * {@code line} around a Hermes call (a line break in the compact layout, as the templates write it).
     */
    private record Blanks(Expr inside, Expr afterColon, Expr afterSeparator, Expr line) {
        static Blanks of(JsonSchemaCompiler.Options options) {
            var layout = JsonSchemaCompiler.Layout.of(options);
            Expr line = options.freeLayout() ? layout.inside() : Expr.literal("\n");
            return new Blanks(layout.inside(), layout.afterColon(), layout.afterComma(), line);
        }
    }

    private static Expr forcedSyntax(ToolCallFormat format, Expr call, boolean parallel, Blanks ws) {
        return switch (format) {
            case LLAMA3 -> separated(call, Expr.literal(";"), parallel, ws);
            case HERMES -> hermesBlocks(Expr.seq(marker("<tool_call>"), ws.line()), call, parallel, ws);
            case MISTRAL -> Expr.seq(marker("[TOOL_CALLS]"), list(call, parallel, ws));
            case GENERIC -> genericWrapper(call, parallel, ws);
        };
    }

    private static Expr triggeredSyntax(ToolCallFormat format, Expr call, boolean parallel, Blanks ws) {
        return switch (format) {
            case LLAMA3 -> Expr.seq(ws.inside(), separated(call, Expr.literal(";"), parallel, ws));
            case HERMES -> hermesBlocks(ws.line(), call, parallel, ws);
            case MISTRAL -> Expr.seq(ws.inside(), list(call, parallel, ws));
            case GENERIC -> Expr.alt(genericWrapper(call, parallel, ws), call);
        };
    }

    /** {@code <tool_call>} call {@code </tool_call>} blocks; {@code first} is what opens the first one. */
    private static Expr hermesBlocks(Expr first, Expr call, boolean parallel, Blanks ws) {
        Expr close = Expr.seq(call, ws.line(), marker("</tool_call>"));
        Expr one = Expr.seq(first, close);
        if (!parallel) return one;
        return Expr.seq(one, Expr.star(Expr.seq(ws.line(), marker("<tool_call>"), ws.line(), close)));
    }

    private static Expr genericWrapper(Expr call, boolean parallel, Blanks ws) {
        return Expr.seq(Expr.literal("{"), ws.inside(), Expr.literal("\"tool_calls\""), ws.inside(), Expr.literal(":"),
                ws.afterColon(), list(call, parallel, ws), ws.inside(), Expr.literal("}"));
    }

    private static Expr list(Expr call, boolean parallel, Blanks ws) {
        return Expr.seq(Expr.literal("["), ws.inside(), separated(call, Expr.literal(","), parallel, ws), ws.inside(),
                Expr.literal("]"));
    }

    private static Expr separated(Expr call, Expr separator, boolean parallel, Blanks ws) {
        return parallel ? Expr.seq(call, Expr.star(Expr.seq(ws.inside(), separator, ws.afterSeparator(), call))) : call;
    }

    /** A marker as its special token or as text. */
    private static Expr marker(String text) {
        return Expr.alt(Expr.bytes(TokenVocabulary.specialTokenBytes(text)), Expr.literal(text));
    }

    /** One call object of the format: the name one of the tools', then that tool's arguments. */
    static Map<String, Object> callSchema(ToolCallFormat format, List<Tool> tools) {
        if (tools.isEmpty()) throw new IllegalArgumentException("no tools to call");
        String argumentsKey = format == ToolCallFormat.LLAMA3 ? "parameters" : "arguments";
        List<Object> calls = new ArrayList<>();
        Map<String, Object> defs = new LinkedHashMap<>();
        for (Tool tool : tools) {
            Object parameters = tool.parameters() == null ? Map.of("type", "object") : tool.parameters();
            if (parameters instanceof Map<?, ?> p) {
                // "#/$defs/..." references resolve against the root: the call schema's root keeps them.
                for (String key : List.of("$defs", "definitions")) {
                    if (p.get(key) instanceof Map<?, ?> d) d.forEach((k, v) -> defs.put(key + "/" + k, v));
                }
            }
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("name", Map.of("const", tool.name()));
            properties.put(argumentsKey, parameters);
            Map<String, Object> call = new LinkedHashMap<>();
            call.put("type", "object");
            call.put("properties", properties);
            call.put("required", List.of("name", argumentsKey));
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
        return root;
    }
}
