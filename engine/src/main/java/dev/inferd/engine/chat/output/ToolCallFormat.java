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
    LLAMA3("<|python_tag|>"),
    /**
     * Hermes, Qwen2.5, Qwen3: {@code <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>},
     * one block per call, possibly after some text.
     */
    HERMES("<tool_call>"),
    /**
     * Mistral: {@code [TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]}, possibly after some text
     * (an {@code "id"} key may follow the arguments).
     */
    MISTRAL("[TOOL_CALLS]"),
    /**
     * Templates without tool support (or with a call syntax not parsed here): the
     * {@code dev.inferd.engine.chat.GenericToolPrompt} asks for a reply that is only
     * {@code {"tool_calls": [{"name": "f", "arguments": {...}}, ...]}}; a bare
     * {@code {"name": "f", "arguments": {...}}} reply is accepted too, and either inside a Markdown
     * code block (the fence is dropped).
     */
    GENERIC(null);

    private final String openingMarker;

    ToolCallFormat(String openingMarker) {
        this.openingMarker = openingMarker;
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
