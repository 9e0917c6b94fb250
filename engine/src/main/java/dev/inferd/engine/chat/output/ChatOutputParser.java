package dev.inferd.engine.chat.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits one generated output into content, reasoning and tool calls while it is generated: feed
 * every generated token's text in order, then {@link #finish()}. The listener hears each channel as
 * it grows (for streaming); {@link #result()} gives the whole at the end. Reasoning is split off
 * first, so a tool-call marker inside the thinking is only thinking. Not thread-safe: one per output.
 */
public final class ChatOutputParser {
    /** Control tokens whose text marks structure; every other control token is not output text. */
    private static final Set<String> MARKER_TOKENS = Set.of(
            "<|python_tag|>", "[TOOL_CALLS]", "<tool_call>", "</tool_call>", "<think>", "</think>");

    private final Recorder recorder;
    private final ReasoningSplitter reasoning;
    private final CallSyntaxParser tools;
    private boolean finished;

    /**
     * @param toolCallFormat how calls are written, or null when the request offered no tools (all is content)
     * @param separateReasoning split {@code <think>} blocks into the reasoning channel
     * @param startsInReasoning the prompt ended inside an open thinking block
     * @param listener hears the channels as they grow ({@link OutputListener#NONE} when not streaming)
     */
    public ChatOutputParser(ToolCallFormat toolCallFormat, boolean separateReasoning, boolean startsInReasoning, OutputListener listener) {
        this.recorder = new Recorder(listener);
        this.tools = toolCallFormat == null ? null : CallSyntaxParser.of(toolCallFormat, recorder);
        this.reasoning = separateReasoning
                ? new ReasoningSplitter(startsInReasoning, recorder, tools == null ? recorder::content : tools::accept)
                : null;
    }

    /**
     * The control tokens (by vocabulary text) that mark structure: a generator that turns tokens
     * into text must keep these as text (or pass them to {@link #acceptControlToken}), since control
     * tokens otherwise decode to nothing.
     */
    public static Set<String> markerTokens() {
        return MARKER_TOKENS;
    }

    /** Text of generated ordinary tokens (any split, also inside a UTF-8 character's chars). */
    public void accept(String text) {
        if (finished) {
            throw new IllegalStateException("finished");
        }
        if (text.isEmpty()) {
            return;
        }
        if (reasoning != null) {
            reasoning.accept(text);
        } else if (tools != null) {
            tools.accept(text);
        } else {
            recorder.content(text);
        }
    }

    /**
     * A generated control token, by its vocabulary text: the markers of the formats here
     * ({@code <|python_tag|>}, {@code [TOOL_CALLS]}, ...) are parsed, the rest ignored as they
     * are not output text. End-of-generation tokens need not be passed.
     */
    public void acceptControlToken(String tokenText) {
        if (MARKER_TOKENS.contains(tokenText)) {
            accept(tokenText);
        }
    }

    /** Ends the output: text held back (a possible marker's beginning) goes to its channel. */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        if (reasoning != null) {
            reasoning.finish();
        }
        if (tools != null) {
            tools.finish();
        }
    }

    /** Whether the output is inside the thinking block now. */
    public boolean inReasoning() {
        return reasoning != null && reasoning.inReasoning();
    }

    /**
     * The call being written, from its opening marker on (the point where a scheduler switches a
     * grammar constraint on), or null when the output is not inside a call.
     */
    public OpenCall openCall() {
        return tools == null || inReasoning() ? null : tools.openCall();
    }

    /** The whole output; call after {@link #finish()}. */
    public ParsedOutput result() {
        if (!finished) {
            throw new IllegalStateException("call finish() first");
        }
        int incomplete = tools == null ? -1 : tools.incompleteCall();
        List<ParsedToolCall> calls = new ArrayList<>(recorder.names.size());
        for (int i = 0; i < recorder.names.size(); i++) {
            calls.add(new ParsedToolCall(i, recorder.names.get(i), recorder.arguments.get(i).toString(), i != incomplete));
        }
        String content = recorder.content.toString();
        boolean noContent = content.isEmpty() || (!calls.isEmpty() && content.isBlank());
        String thinking = recorder.reasoning.toString();
        return new ParsedOutput(noContent ? null : content, thinking.isEmpty() ? null : thinking, calls);
    }

    /** Keeps every channel's text while passing it on. */
    private static final class Recorder implements OutputListener {
        private final OutputListener next;
        final StringBuilder content = new StringBuilder();
        final StringBuilder reasoning = new StringBuilder();
        final List<String> names = new ArrayList<>();
        final List<StringBuilder> arguments = new ArrayList<>();

        Recorder(OutputListener next) {
            this.next = next;
        }

        @Override
        public void content(String text) {
            content.append(text);
            next.content(text);
        }

        @Override
        public void reasoning(String text) {
            reasoning.append(text);
            next.reasoning(text);
        }

        @Override
        public void toolCallStarted(int index, String name) {
            names.add(name);
            arguments.add(new StringBuilder());
            next.toolCallStarted(index, name);
        }

        @Override
        public void toolCallArguments(int index, String fragment) {
            arguments.get(index).append(fragment);
            next.toolCallArguments(index, fragment);
        }
    }
}
