package dev.inferd.engine.chat;

import dev.inferd.engine.chat.jinja.JsonReader;
import dev.inferd.engine.chat.jinja.TemplateException;
import dev.inferd.engine.chat.jinja.TemplateRaisedException;
import dev.inferd.engine.chat.output.ChatOutputParser;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.engine.chat.output.ToolCallFormat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's chat conventions: how a conversation with tools becomes its prompt, and how its output
 * is split into content, reasoning and tool calls. Built once per model from its template; what the
 * template can do is found by rendering small probe conversations through it, not from the model's name.
 *
 * <p>Rendering, as Hugging Face transformers and vLLM hand OpenAI messages to a template:
 * <ul>
 * <li>{@code developer} messages are {@code system} messages; consecutive system messages are joined
 *     with a blank line (templates take only the first one as the system prompt).</li>
 * <li>An assistant message with calls is {@code {role, content (null when absent), tool_calls: [{id,
 *     type: "function", function: {name, arguments}}]}}; {@code arguments} stays a JSON string for
 *     templates that write it as text (DeepSeek, Hermes) and is parsed into an object for those that
 *     serialize it themselves with {@code tojson} (Llama, Qwen, Mistral). A tool message is
 *     {@code {role: "tool", content, tool_call_id, name}} (the name found from the call when the
 *     request does not give it). Mistral's template demands 9-character alphanumeric call ids: other
 *     ids are mapped to such ones, consistently between a call and its result.</li>
 * <li>Tools reach a template that shows them and whose call syntax is parsed
 *     ({@link ToolCallFormat#LLAMA3}, {@link ToolCallFormat#HERMES}, {@link ToolCallFormat#MISTRAL})
 *     as its {@code tools} variable, a list of {@code {type: "function", function: {name, description,
 *     parameters}}}. Every other template gets the {@link GenericToolPrompt} added to the system
 *     message and its output is parsed as {@link ToolCallFormat#GENERIC}.</li>
 * <li>A template that cannot render past calls and results (Gemma, Phi-3.5) gets them as text:
 *     the calls as the assistant's generic-form reply, each result as a user turn (consecutive ones joined).</li>
 * <li>A template that raises an error on a system message (Gemma), or leaves its text out (Phi-3 mini),
 *     gets the system text at the start of the next user turn, separated by a blank line, as Gemma's
 *     documentation says to do.</li>
 * <li>{@code enable_thinking} is set when the request says so; other variables come from
 *     {@link PromptOptions#variables()}.</li>
 * </ul>
 */
public final class ChatFormat {
    private static final String PROBE_FUNCTION = "inferd_probe_function";
    private static final String PROBE_VALUE = "inferd_probe_value";
    private static final String PROBE_ARGUMENTS = "{\"inferd_probe_argument\": \"" + PROBE_VALUE + "\"}";
    private static final String PROBE_RESULT = "inferd_probe_result";
    private static final String PROBE_SYSTEM = "inferd_probe_system";
    private static final String PROBE_ID = "a1b2c3d4e";

    private final ChatTemplate template;
    private final ToolCallFormat toolCallFormat;
    private final boolean thinks;
    private final boolean rendersTools;
    private final boolean rendersToolTurns;
    private final boolean objectArguments;
    private final boolean foldsSystem;

    private ChatFormat(ChatTemplate template, String source) {
        this.template = template;
        this.thinks = source != null && source.contains("<think>");
        ToolCallFormat format = ToolCallFormat.fromTemplate(source);
        this.rendersTools = format != ToolCallFormat.GENERIC && probeRendersTools();
        this.toolCallFormat = rendersTools ? format : ToolCallFormat.GENERIC;
        Boolean arguments = probeArguments();
        this.rendersToolTurns = arguments != null;
        this.objectArguments = Boolean.TRUE.equals(arguments);
        this.foldsSystem = probeRejectsSystem();
    }

    /**
     * @param templateSource the model's {@code tokenizer.chat_template}, or null/blank for the plain format
     * @throws TemplateException when the template does not parse
     */
    public static ChatFormat of(String templateSource, String bosToken, String eosToken) {
        return of(templateSource, bosToken, eosToken, Clock.systemDefaultZone());
    }

    /** As {@link #of(String, String, String)}, with the clock {@code strftime_now} reads. */
    public static ChatFormat of(String templateSource, String bosToken, String eosToken, Clock clock) {
        return new ChatFormat(ChatTemplates.of(templateSource, bosToken, eosToken, clock), templateSource);
    }

    /** The template itself, for rendering maps directly. */
    public ChatTemplate template() {
        return template;
    }

    /** How tool calls are written in this model's output. */
    public ToolCallFormat toolCallFormat() {
        return toolCallFormat;
    }

    /** Whether the template itself presents the {@code tools} variable (otherwise the generic prompt does). */
    public boolean rendersTools() {
        return rendersTools;
    }

    /** Whether the template opens thinking blocks ({@code <think>}), so output may hold reasoning. */
    public boolean thinks() {
        return thinks;
    }

    /** Whether a system message goes into the next user turn, because the template refuses or drops one. */
    public boolean foldsSystemIntoUser() {
        return foldsSystem;
    }

    /**
     * Renders the conversation with a generation prompt.
     *
     * @throws IllegalArgumentException when the template rejects the conversation (its own message,
     *         e.g. "Conversation roles must alternate ...") or a call's arguments are not JSON
     */
    public RenderedPrompt render(List<Message> messages, PromptOptions options) {
        String text = render(messages, options, true);
        return new RenderedPrompt(text, opensReasoning(text));
    }

    /**
     * Renders the conversation so that the prompt ends with its last message, an assistant turn, still open:
     * the model continues that text (a prefill) rather than starting a turn of its own. The template renders the
     * turn with a stand-in text, and the prompt is cut where the stand-in starts, so whatever the template puts
     * after a finished turn (its end-of-turn marker) is left out and whatever it does to a turn's text (trimming,
     * dropping earlier thinking) does not touch the prefill. A template that leaves the stand-in out gets the
     * generation prompt followed by the prefill instead.
     *
     * @throws IllegalArgumentException as {@link #render(List, PromptOptions)}, or when the last message is not
     *         an assistant turn of text
     */
    public RenderedPrompt renderContinuing(List<Message> messages, PromptOptions options) {
        Message last = messages.isEmpty() ? null : messages.getLast();
        if (last == null || last.role() != Message.Role.ASSISTANT || last.content() == null || !last.toolCalls().isEmpty()) {
            throw new IllegalArgumentException("only a final assistant turn of text can be continued");
        }
        List<Message> earlier = messages.subList(0, messages.size() - 1);
        List<Message> probe = new ArrayList<>(earlier);
        probe.add(Message.assistant(CONTINUATION_STAND_IN));
        String withStandIn = render(probe, options, false);
        int at = withStandIn.lastIndexOf(CONTINUATION_STAND_IN);
        String text = (at >= 0 ? withStandIn.substring(0, at) : render(earlier, options, true)) + last.content();
        return new RenderedPrompt(text, opensReasoning(text));
    }

    /** Stands in for a continued turn's text: letters and digits only, so that no template escapes or trims it. */
    private static final String CONTINUATION_STAND_IN = "inferdContinuationStandIn7q2x";

    /**
     * Whether these turns, rendered as they are (each message's role and text, nothing merged: the generator's
     * own chat prompt) with the generation prompt, end inside an open thinking block.
     */
    public boolean plainPromptOpensReasoning(List<Message> turns) {
        if (!thinks) return false;
        List<Map<String, Object>> maps = new ArrayList<>(turns.size());
        for (Message m : turns) {
            maps.add(message(m.role() == Message.Role.DEVELOPER ? "system" : m.role().wireName(),
                    m.content() == null ? "" : m.content()));
        }
        try {
            return opensReasoning(template.render(maps, true, Map.of()));
        } catch (TemplateException e) {
            return false; // the prompt itself then fails to render, and says why
        }
    }

    private boolean opensReasoning(String text) {
        return thinks && text.lastIndexOf("<think>") > text.lastIndexOf("</think>");
    }

    /** As {@link #render(List, PromptOptions)}, with or without the generation prompt (e.g. to render a finished conversation). */
    public String render(List<Message> messages, PromptOptions options, boolean addGenerationPrompt) {
        List<Map<String, Object>> functions = functions(options.tools());
        List<Message> merged = mergeSystemMessages(messages, !functions.isEmpty() && !rendersTools
                ? GenericToolPrompt.describe(functions) : null);
        List<Map<String, Object>> maps = toTemplateMessages(merged);
        if (foldsSystem) {
            maps = foldSystem(maps);
        }
        Map<String, Object> variables = new HashMap<>();
        if (rendersTools && !functions.isEmpty()) {
            List<Object> tools = new ArrayList<>();
            for (Map<String, Object> f : functions) {
                Map<String, Object> tool = new LinkedHashMap<>();
                tool.put("type", "function");
                tool.put("function", f);
                tools.add(tool);
            }
            variables.put("tools", tools);
        }
        if (options.enableThinking() != null) {
            variables.put("enable_thinking", options.enableThinking());
        }
        variables.putAll(options.variables());
        try {
            return template.render(maps, addGenerationPrompt, variables);
        } catch (TemplateException e) {
            throw new IllegalArgumentException(e instanceof TemplateRaisedException
                    ? e.getMessage() : "the model's chat template failed on this conversation: " + e.getMessage(), e);
        }
    }

    /**
     * A parser for one output of a prompt rendered here.
     *
     * @param separateReasoning send thinking to the reasoning channel (when the template thinks)
     * @param parseToolCalls the request offered tools, so calls are recognised
     * @param listener hears content, reasoning and calls as they are generated
     */
    public ChatOutputParser outputParser(RenderedPrompt prompt, boolean separateReasoning, boolean parseToolCalls,
                                         OutputListener listener) {
        return new ChatOutputParser(parseToolCalls ? toolCallFormat : null,
                separateReasoning && thinks, prompt.opensReasoning(), listener);
    }

    // ---- conversion ----

    private static List<Map<String, Object>> functions(List<ToolDefinition> tools) {
        List<Map<String, Object>> functions = new ArrayList<>(tools.size());
        for (ToolDefinition t : tools) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("name", t.name());
            if (t.description() != null) {
                f.put("description", t.description());
            }
            f.put("parameters", t.parametersJson() == null ? emptyParameters() : parseJson(t.parametersJson(), "tool " + t.name() + " parameters"));
            functions.add(f);
        }
        return functions;
    }

    private static Map<String, Object> emptyParameters() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", "object");
        p.put("properties", new LinkedHashMap<>());
        return p;
    }

    /** Developer becomes system; runs of system messages become one; the generic tool prompt joins the first. */
    private static List<Message> mergeSystemMessages(List<Message> messages, String toolPrompt) {
        List<Message> out = new ArrayList<>(messages.size() + 1);
        if (toolPrompt != null && (messages.isEmpty() || !isSystem(messages.getFirst()))) {
            out.add(Message.system(toolPrompt));
            toolPrompt = null;
        }
        for (Message m : messages) {
            if (isSystem(m)) {
                String text = m.content();
                if (!out.isEmpty() && out.getLast().role() == Message.Role.SYSTEM) {
                    text = out.removeLast().content() + "\n\n" + text;
                }
                out.add(Message.system(text));
            } else {
                if (toolPrompt != null) {
                    out.add(Message.system(out.removeLast().content() + "\n\n" + toolPrompt));
                    toolPrompt = null;
                }
                out.add(m);
            }
        }
        if (toolPrompt != null) {
            out.add(Message.system(out.removeLast().content() + "\n\n" + toolPrompt));
        }
        return out;
    }

    private static boolean isSystem(Message m) {
        return m.role() == Message.Role.SYSTEM || m.role() == Message.Role.DEVELOPER;
    }

    private List<Map<String, Object>> toTemplateMessages(List<Message> messages) {
        Map<String, String> namesById = new HashMap<>();
        for (Message m : messages) {
            for (ToolCall c : m.toolCalls()) {
                namesById.put(c.id(), c.name());
            }
        }
        List<Map<String, Object>> out = new ArrayList<>(messages.size());
        for (Message m : messages) {
            switch (m.role()) {
                case SYSTEM, DEVELOPER, USER -> out.add(message(m.role().wireName(), m.content()));
                case ASSISTANT -> out.add(m.toolCalls().isEmpty() ? message("assistant", m.content()) : assistantWithCalls(m));
                case TOOL -> {
                    String name = m.name() != null ? m.name() : namesById.get(m.toolCallId());
                    if (rendersToolTurns) {
                        Map<String, Object> map = message("tool", m.content());
                        map.put("tool_call_id", callId(m.toolCallId()));
                        if (name != null) {
                            map.put("name", name);
                        }
                        out.add(map);
                    } else {
                        String text = GenericToolPrompt.result(name, m.content());
                        if (!out.isEmpty() && out.getLast().get("role").equals("user") && out.getLast().containsKey(TOOL_RESULT_MARK)) {
                            text = out.removeLast().get("content") + "\n\n" + text;
                        }
                        Map<String, Object> map = message("user", text);
                        map.put(TOOL_RESULT_MARK, true);
                        out.add(map);
                    }
                }
            }
        }
        out.forEach(map -> map.remove(TOOL_RESULT_MARK));
        return out;
    }

    private static final String TOOL_RESULT_MARK = "\0tool_result";

    private Map<String, Object> assistantWithCalls(Message m) {
        if (!rendersToolTurns) {
            List<Map<String, Object>> calls = new ArrayList<>();
            for (ToolCall c : m.toolCalls()) {
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("name", c.name());
                call.put("arguments", parseJson(c.arguments(), "the arguments of tool call " + c.id()));
                calls.add(call);
            }
            String json = GenericToolPrompt.calls(calls);
            return message("assistant", m.content() == null || m.content().isEmpty() ? json : m.content() + "\n" + json);
        }
        List<Map<String, Object>> calls = new ArrayList<>();
        for (ToolCall c : m.toolCalls()) {
            Map<String, Object> function = new LinkedHashMap<>();
            function.put("name", c.name());
            function.put("arguments", objectArguments ? parseJson(c.arguments(), "the arguments of tool call " + c.id()) : c.arguments());
            Map<String, Object> call = new LinkedHashMap<>();
            call.put("id", callId(c.id()));
            call.put("type", "function");
            call.put("function", function);
            calls.add(call);
        }
        Map<String, Object> map = message("assistant", m.content());
        map.put("tool_calls", calls);
        return map;
    }

    private String callId(String id) {
        return toolCallFormat == ToolCallFormat.MISTRAL ? MistralCallIds.of(id) : id;
    }

    private static Map<String, Object> message(String role, Object content) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("role", role);
        map.put("content", content);
        return map;
    }

    private static Object parseJson(String json, String what) {
        try {
            return JsonReader.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " are not valid JSON: " + e.getMessage(), e);
        }
    }

    /** System text joins the start of the next user turn; a trailing one becomes a user turn. */
    private static List<Map<String, Object>> foldSystem(List<Map<String, Object>> messages) {
        List<Map<String, Object>> out = new ArrayList<>(messages.size());
        String pending = null;
        for (Map<String, Object> m : messages) {
            if ("system".equals(m.get("role"))) {
                pending = pending == null ? (String) m.get("content") : pending + "\n\n" + m.get("content");
            } else if (pending != null && "user".equals(m.get("role"))) {
                Map<String, Object> user = new LinkedHashMap<>(m);
                user.put("content", pending + "\n\n" + m.get("content"));
                out.add(user);
                pending = null;
            } else {
                out.add(m);
            }
        }
        if (pending != null) {
            out.add(message("user", pending));
        }
        return out;
    }

    // ---- probes ----

    private boolean probeRendersTools() {
        try {
            return template.render(List.of(message("user", "inferd probe question")), true,
                    Map.of("tools", List.of(probeTool()))).contains(PROBE_FUNCTION);
        } catch (TemplateException e) {
            return false;
        }
    }

    /** TRUE: calls render with object arguments; FALSE: with string arguments; null: calls or results do not render. */
    private Boolean probeArguments() {
        for (boolean object : new boolean[] {false, true}) {
            try {
                Map<String, Object> function = new LinkedHashMap<>();
                function.put("name", PROBE_FUNCTION);
                function.put("arguments", object ? JsonReader.parse(PROBE_ARGUMENTS) : PROBE_ARGUMENTS);
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("id", PROBE_ID);
                call.put("type", "function");
                call.put("function", function);
                Map<String, Object> assistant = message("assistant", null);
                assistant.put("tool_calls", List.of(call));
                Map<String, Object> tool = message("tool", PROBE_RESULT);
                tool.put("tool_call_id", PROBE_ID);
                tool.put("name", PROBE_FUNCTION);
                Map<String, Object> variables = rendersTools ? Map.of("tools", List.of(probeTool())) : Map.of();
                String out = template.render(List.of(message("user", "inferd probe question"), assistant, tool), true, variables);
                boolean argumentsShown = object ? out.contains(PROBE_VALUE) : out.contains(PROBE_ARGUMENTS);
                if (out.contains(PROBE_FUNCTION) && argumentsShown && out.contains(PROBE_RESULT)) {
                    return object;
                }
            } catch (TemplateException e) {
                // try the other form
            }
        }
        return null;
    }

    /** A template that raises an error on a system message, or renders without its text. */
    private boolean probeRejectsSystem() {
        try {
            String out = template.render(List.of(message("system", PROBE_SYSTEM), message("user", "inferd probe question")), true, Map.of());
            return !out.contains(PROBE_SYSTEM);
        } catch (TemplateRaisedException e) {
            try {
                template.render(List.of(message("user", "inferd probe question")), true, Map.of());
                return true;
            } catch (TemplateException again) {
                return false;
            }
        } catch (TemplateException e) {
            return false;
        }
    }

    private static Map<String, Object> probeTool() {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", PROBE_FUNCTION);
        function.put("description", "inferd probe description");
        function.put("parameters", JsonReader.parse(
                "{\"type\": \"object\", \"properties\": {\"inferd_probe_argument\": {\"type\": \"string\", \"description\": \"d\"}}, \"required\": [\"inferd_probe_argument\"]}"));
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("type", "function");
        tool.put("function", function);
        return tool;
    }
}
