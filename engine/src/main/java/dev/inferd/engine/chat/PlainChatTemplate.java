package dev.inferd.engine.chat;

import java.util.List;
import java.util.Map;

/**
 * The fallback for models that ship no chat template (such as stories260K): one line per message,
 * {@code role: content}, each ending with a newline, and {@code assistant:} (no trailing space, so
 * the model's own first token supplies it) as the generation prompt. For example:
 *
 * <pre>
 * system: You are terse.
 * user: Hello!
 * assistant:</pre>
 *
 * No BOS or EOS text is added: the tokenizer adds BOS itself when encoding the prompt. A message's
 * {@code content} may be a string, null (empty), or a list of parts whose {@code text} entries are
 * concatenated (the OpenAI content-parts form). {@code extraVariables} (tools, ...) are ignored:
 * such a model cannot use them anyway.
 */
public final class PlainChatTemplate implements ChatTemplate {

    @Override
    public String render(List<Map<String, Object>> messages, boolean addGenerationPrompt, Map<String, Object> extraVariables) {
        var sb = new StringBuilder();
        for (Map<String, Object> message : messages) {
            Object role = message.get("role");
            if (role == null) {
                throw new IllegalArgumentException("message without a role: " + message);
            }
            sb.append(role).append(": ").append(text(message.get("content"))).append('\n');
        }
        if (addGenerationPrompt) {
            sb.append("assistant:");
        }
        return sb.toString();
    }

    private static String text(Object content) {
        return switch (content) {
            case null -> "";
            case String s -> s;
            case List<?> parts -> {
                var sb = new StringBuilder();
                for (Object part : parts) {
                    if (part instanceof Map<?, ?> m && m.get("text") instanceof String t) {
                        sb.append(t);
                    } else if (part instanceof String s) {
                        sb.append(s);
                    }
                }
                yield sb.toString();
            }
            default -> content.toString();
        };
    }
}
