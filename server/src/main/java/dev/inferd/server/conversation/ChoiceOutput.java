package dev.inferd.server.conversation;

import java.util.List;

/**
 * One choice's whole output, parsed.
 *
 * @param content   the text for the user, or null when there is none (only calls, or only whitespace beside them)
 * @param reasoning the thinking text, or null
 * @param calls     the calls within the number the request allows, complete or not
 * @param engineStop whether the engine stopped the choice ({@link StopReason#STOP}) or it ran out of room ({@link StopReason#LENGTH})
 * @param stopSequence the request's stop sequence that ended the choice, or null
 */
public record ChoiceOutput(String content, String reasoning, List<ToolCallOutput> calls, StopReason engineStop,
                           String stopSequence) {

    public ChoiceOutput {
        calls = List.copyOf(calls);
    }

    public ChoiceOutput(String content, String reasoning, List<ToolCallOutput> calls, StopReason engineStop) {
        this(content, reasoning, calls, engineStop, null);
    }

    public List<ToolCallOutput> completeCalls() {
        return calls.stream().filter(ToolCallOutput::complete).toList();
    }

    /** A choice that ended normally with calls in it ended to call tools. */
    public StopReason reason() {
        return engineStop == StopReason.STOP && !calls.isEmpty() ? StopReason.TOOL_CALLS : engineStop;
    }
}
