package dev.inferd.engine.chat.output;

/**
 * How a model writes tool calls in its output, chosen from its chat template (never from the
 * model's name). Each names the text that opens a call; from there on a call is JSON whose
 * function name is under {@code "name"} and whose arguments object is under {@code "arguments"}
 * (Llama also writes {@code "parameters"}).
 */
public enum ToolCallFormat {
    /**
     * Llama 3.1/3.2/3.3: the whole reply is {@code {"name": "f", "parameters": {...}}} (several
     * separated by {@code ;}), or {@code <|python_tag|>} followed by such an object, by
     * {@code f.call(key="value", ...)} for a built-in tool, or by Python code (a call of
     * {@code python} with arguments {@code {"code": "..."}}).
     */
    LLAMA3("<|python_tag|>", "", "{\"name\": \"", "\", \"parameters\": ", "}", "; ", ""),
    /**
     * Hermes, Qwen2.5, Qwen3: {@code <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>},
     * one block per call, possibly after some text.
     */
    HERMES("<tool_call>", "", "<tool_call>\n{\"name\": \"", "\", \"arguments\": ", "}\n</tool_call>", "\n", ""),
    /**
     * Mistral: {@code [TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]}, possibly after some text
     * (an {@code "id"} key may follow the arguments).
     */
    MISTRAL("[TOOL_CALLS]", "[TOOL_CALLS][", "{\"name\": \"", "\", \"arguments\": ", "}", ", ", "]"),
    /**
     * Templates without tool support (or with a call syntax not parsed here): the
     * {@code dev.inferd.engine.chat.GenericToolPrompt} asks for a reply that is only
     * {@code {"tool_calls": [{"name": "f", "arguments": {...}}, ...]}}; a bare
     * {@code {"name": "f", "arguments": {...}}} reply is accepted too, and either inside a Markdown
     * code block (the fence is dropped).
     */
    GENERIC(null, "{\"tool_calls\": [", "{\"name\": \"", "\", \"arguments\": ", "}", ", ", "]}");

    private final String openingMarker;
    private final String open;
    private final String beforeName;
    private final String afterName;
    private final String afterArguments;
    private final String between;
    private final String close;

    ToolCallFormat(String openingMarker, String open, String beforeName, String afterName, String afterArguments,
                   String between, String close) {
        this.openingMarker = openingMarker;
        this.open = open;
        this.beforeName = beforeName;
        this.afterName = afterName;
        this.afterArguments = afterArguments;
        this.between = between;
        this.close = close;
    }

    /**
     * The canonical text of a reply that is only calls, as a grammar forces it for
     * {@code tool_choice} {@code required} or a named function: {@link #open()}, then per call
     * {@link #callStart(String)} + the arguments JSON + {@link #callEnd()}, with {@link #between()}
     * between calls, then {@link #close()}. The parser reads this text back as those calls.
     */
    public String open() {
        return open;
    }

    /** The text of a call up to its arguments; {@code name} is written as is (function names need no JSON escaping). */
    public String callStart(String name) {
        return beforeName + name + afterName;
    }

    /** The text after a call's arguments. */
    public String callEnd() {
        return afterArguments;
    }

    /** The text between two calls. */
    public String between() {
        return between;
    }

    /** The text after the last call. */
    public String close() {
        return close;
    }

    /**
     * The text that opens a call anywhere in the output, or null when calls are only recognised
     * as a reply that starts with JSON (Llama's JSON form, the generic form).
     */
    public String openingMarker() {
        return openingMarker;
    }

    /**
     * The format a template's tool calls use, judged by the call syntax it writes for the
     * assistant's past calls: {@code <tool_call>} is {@link #HERMES}, {@code [TOOL_CALLS]}
     * {@link #MISTRAL}, Llama 3's {@code ipython} role {@link #LLAMA3}. Other syntaxes (Functionary's
     * {@code <function=}, Firefunction's {@code functools[}, Command R's {@code Action:}, DeepSeek's
     * call tokens) and templates without tools are {@link #GENERIC}.
     */
    public static ToolCallFormat fromTemplate(String templateSource) {
        if (templateSource == null) {
            return GENERIC;
        }
        if (templateSource.contains("<tool_call>")) {
            return HERMES;
        }
        if (templateSource.contains("[TOOL_CALLS]")) {
            return MISTRAL;
        }
        if (templateSource.contains("<function=") || templateSource.contains("functools[")) {
            return GENERIC;
        }
        if (templateSource.contains("<|python_tag|>") || templateSource.contains("<|start_header_id|>ipython")) {
            return LLAMA3;
        }
        return GENERIC;
    }
}
