package dev.inferd.engine.chat;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation, as an OpenAI chat request carries it (content already reduced to
 * text). {@link ChatFormat} turns these into what each chat template indexes.
 *
 * @param content the text; null only for an assistant message that carries tool calls
 * @param toolCalls the calls an assistant message made (empty for every other role)
 * @param toolCallId for a {@link Role#TOOL} message, the id of the call it answers
 * @param name for a {@link Role#TOOL} message, the function's name when the request gives it
 *             (otherwise {@link ChatFormat} looks it up from the call), else null
 */
public record Message(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String name) {

    public enum Role {
        SYSTEM, DEVELOPER, USER, ASSISTANT, TOOL;

        /** The role's name on the wire and in templates. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Message {
        Objects.requireNonNull(role, "role");
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        if (!toolCalls.isEmpty() && role != Role.ASSISTANT) {
            throw new IllegalArgumentException("only assistant messages carry tool calls");
        }
        if (content == null && toolCalls.isEmpty()) {
            throw new IllegalArgumentException("a " + role.wireName() + " message needs content");
        }
        if (role == Role.TOOL && toolCallId == null) {
            throw new IllegalArgumentException("a tool message needs its tool_call_id");
        }
    }

    public static Message system(String content) {
        return new Message(Role.SYSTEM, content, List.of(), null, null);
    }

    public static Message developer(String content) {
        return new Message(Role.DEVELOPER, content, List.of(), null, null);
    }

    public static Message user(String content) {
        return new Message(Role.USER, content, List.of(), null, null);
    }

    public static Message assistant(String content) {
        return new Message(Role.ASSISTANT, content, List.of(), null, null);
    }

    /** An assistant turn that called tools; {@code content} is usually null. */
    public static Message assistant(String content, List<ToolCall> toolCalls) {
        return new Message(Role.ASSISTANT, content, toolCalls, null, null);
    }

    public static Message tool(String toolCallId, String content) {
        return new Message(Role.TOOL, content, List.of(), toolCallId, null);
    }
}
