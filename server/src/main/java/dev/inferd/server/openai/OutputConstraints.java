package dev.inferd.server.openai;

import dev.inferd.engine.chat.output.ToolCallFormat;
import dev.inferd.engine.chat.output.ToolCallGrammar;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.GrammarConstraint;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.sample.TokenConstraint;

import java.util.ArrayList;
import java.util.List;

/**
 * The grammar a request's output must follow: its {@code response_format}, or tool calls in the
 * chat template's call syntax ({@link ToolCallGrammar}), their arguments constrained to the
 * function's {@code parameters}. Compiled grammars are cached server-wide.
 */
public final class OutputConstraints {

    private static final GrammarCache GRAMMARS = new GrammarCache(256, JsonSchemaCompiler.Options.DEFAULT);
    /** For requests that ask for {@code json_layout: "free"}. */
    private static final GrammarCache FREE_LAYOUT_GRAMMARS = new GrammarCache(64, JsonSchemaCompiler.Options.FREE_LAYOUT);

    private OutputConstraints() {
    }

    /**
     * The constraint of a conversation's output, or null when it is free; {@code formatParam} names the field
     * that holds the format in errors. A forced call is written in the template's own call syntax from the
     * first token; with {@code tool_choice} {@code auto} the output is free until it opens a call (the
     * syntax's marker, or a reply that opens as a JSON call), and the call is constrained from there on.
     * With {@code thinkingApart} the thinking block is split off and call markers inside it start no
     * constraint; {@code startsInThinking}: the prompt opened that block; {@code freeLayout}:
     * {@code json_layout: "free"}.
     */
    public static TokenConstraint.Factory forOutput(ChatTools tools, ResponseFormat responseFormat, boolean freeLayout,
                                                    TextGenerator generator, boolean thinkingApart,
                                                    boolean startsInThinking, String formatParam) {
        GrammarCache grammars = grammars(freeLayout);
        if (tools.forcesCall()) {
            if (!(responseFormat instanceof ResponseFormat.Text)) {
                throw ApiError.invalid(formatParam, "Invalid '" + formatParam + "': a JSON response format cannot "
                        + "be combined with a 'tool_choice' that forces a call.");
            }
            var allowed = allowedTools(tools, grammars);
            ToolCallFormat format = generator.chatFormat().toolCallFormat();
            // One call: a forced reply that may go on calling is where a weak model loops until its token limit.
            return constraint(compileCalls(() -> ToolCallGrammar.forced(format, allowed, false, grammars)),
                    generator, "tools");
        }
        if (tools.parsesCalls() && responseFormat instanceof ResponseFormat.Text) {
            TokenVocabulary vocabulary = generator.vocabulary();
            if (vocabulary == null) return null; // free text; calls are read from it as written
            var allowed = allowedTools(tools, grammars);
            ToolCallFormat format = generator.chatFormat().toolCallFormat();
            Grammar calls = compileCalls(() -> ToolCallGrammar.afterTrigger(format, allowed, tools.parallelCalls(), grammars));
            var trigger = thinkingApart ? ToolCallGrammar.trigger(format, startsInThinking) : ToolCallGrammar.trigger(format);
            return GrammarConstraint.triggeredFactory(calls, vocabulary, trigger);
        }
        return forFormat(responseFormat, freeLayout, generator, formatParam);
    }

    /** The constraint of a {@code response_format} in the compact JSON layout, or null for text. */
    public static TokenConstraint.Factory forFormat(ResponseFormat format, TextGenerator generator, String param) {
        return forFormat(format, false, generator, param);
    }

    /** The constraint of a {@code response_format}, or null for text; {@code freeLayout}: {@code json_layout: "free"}. */
    public static TokenConstraint.Factory forFormat(ResponseFormat format, boolean freeLayout, TextGenerator generator,
                                                    String param) {
        GrammarCache grammars = grammars(freeLayout);
        return switch (format) {
            case ResponseFormat.Text t -> null;
            case ResponseFormat.JsonObject o -> constraint(grammars.anyObject(), generator, param);
            case ResponseFormat.JsonSchema s -> constraint(s.schema() == null ? grammars.anyValue()
                    : compile(s.schema(), schemaParam(param), grammars), generator, param);
        };
    }

    private static GrammarCache grammars(boolean freeLayout) {
        return freeLayout ? FREE_LAYOUT_GRAMMARS : GRAMMARS;
    }

    /** Where a format's schema sits: chat's {@code response_format.json_schema.schema}, Responses' {@code text.format.schema}. */
    private static String schemaParam(String formatParam) {
        return formatParam.equals("response_format") ? formatParam + ".json_schema.schema" : formatParam + ".schema";
    }

    /** The functions the model may call, each schema checked on its own so that a 400 names its tool. */
    private static List<ToolCallGrammar.Tool> allowedTools(ChatTools tools, GrammarCache grammars) {
        List<String> names = tools.definitions().stream().map(d -> d.name()).toList();
        List<ToolCallGrammar.Tool> allowed = new ArrayList<>();
        for (String name : tools.allowed()) {
            Object parameters = tools.parameters().get(name);
            if (parameters != null) compile(parameters, "tools[" + names.indexOf(name) + "].function.parameters", grammars);
            allowed.add(new ToolCallGrammar.Tool(name, parameters));
        }
        return allowed;
    }

    private static Grammar compileCalls(java.util.function.Supplier<Grammar> compile) {
        try {
            return compile.get();
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("tools", "Invalid 'tools': " + e.getMessage());
        }
    }

    private static Grammar compile(Object schema, String param, GrammarCache grammars) {
        try {
            return grammars.schema(schema);
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
