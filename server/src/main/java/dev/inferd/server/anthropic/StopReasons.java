package dev.inferd.server.anthropic;

/** Anthropic's {@code stop_reason} for how a reply ended. */
public final class StopReasons {

    private StopReasons() {
    }

    /**
     * @param lengthLimited the reply reached its token cap or the context's end
     * @param stopSequence  the stop sequence that ended it, or null
     * @param calledTools   the reply holds tool calls
     */
    public static String of(boolean lengthLimited, String stopSequence, boolean calledTools) {
        if (lengthLimited) return "max_tokens";
        if (stopSequence != null) return "stop_sequence";
        return calledTools ? "tool_use" : "end_turn";
    }
}
