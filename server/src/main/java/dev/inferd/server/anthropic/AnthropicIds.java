package dev.inferd.server.anthropic;

import dev.inferd.server.conversation.ToolCallIds;

/** Ids in Anthropic's shapes: {@code msg_...} for a reply, {@code toolu_...} for a tool call. */
public final class AnthropicIds {

    private static final String CALL_PREFIX = "call_";

    private AnthropicIds() {
    }

    public static String message() {
        return "msg_" + ToolCallIds.alphanumeric(24);
    }

    /** The pipeline's call id ({@code call_...}) with Anthropic's prefix, the same in every event about the call. */
    public static String toolUse(String callId) {
        return "toolu_" + (callId.startsWith(CALL_PREFIX) ? callId.substring(CALL_PREFIX.length()) : callId);
    }
}
