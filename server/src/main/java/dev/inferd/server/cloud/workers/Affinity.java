package dev.inferd.server.cloud.workers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.http.ServerRequest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The key that keeps one conversation on the worker holding its prefix in its KV cache, the first of:
 * <ol>
 *   <li>the client's session header ({@value #SESSION_HEADER}), or {@code prompt_cache_key} (Codex sends one per
 *       conversation);</li>
 *   <li>Messages' {@code metadata.user_id}: Claude Code's names its session;</li>
 *   <li>the route's own key for the conversation: a Responses conversation's first input item, which its
 *       follow-ups ({@code previous_response_id}) share though they do not send it;</li>
 *   <li>a hash of the prompt's start: the system prompt and first messages, or the first characters of a
 *       completion's prompt.</li>
 * </ol>
 */
final class Affinity {

    static final String SESSION_HEADER = "x-session-id";
    /** The prompt's start that is hashed: enough to tell conversations apart, short enough to hash at once. */
    private static final int PREFIX_CHARS = 2048;

    private Affinity() {
    }

    /** The request's key, or null when it has nothing to key on. */
    static String of(ServerRequest request, JsonNode body) {
        return of(request, body, null);
    }

    /**
     * @param conversation the route's key for the request's conversation (see the class comment), or null
     */
    static String of(ServerRequest request, JsonNode body, String conversation) {
        String session = request.header(SESSION_HEADER);
        if (session != null && !session.isBlank()) return "s:" + session.strip();
        JsonNode cacheKey = body.get("prompt_cache_key");
        if (cacheKey != null && cacheKey.isTextual() && !cacheKey.asText().isBlank()) return "k:" + cacheKey.asText();
        JsonNode user = body.path("metadata").get("user_id");
        if (user != null && user.isTextual() && !user.asText().isBlank()) return "u:" + user.asText();
        if (conversation != null) return "c:" + sha256(clip(conversation));
        String start = promptStart(body);
        return start == null ? null : "p:" + sha256(start);
    }

    private static String clip(String text) {
        return text.length() > PREFIX_CHARS ? text.substring(0, PREFIX_CHARS) : text;
    }

    private static String promptStart(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages != null && messages.isArray() && !messages.isEmpty()) {
            var text = new StringBuilder();
            JsonNode system = body.get("system"); // Messages' system prompt sits beside its messages
            if (system != null && !system.isNull()) text.append(system).append('\n');
            for (int i = 0; i < Math.min(2, messages.size()) && text.length() < PREFIX_CHARS; i++) {
                text.append(messages.get(i).toString()).append('\n');
            }
            return text.length() > PREFIX_CHARS ? text.substring(0, PREFIX_CHARS) : text.toString();
        }
        JsonNode prompt = body.get("prompt");
        if (prompt != null && prompt.isTextual()) {
            String p = prompt.asText();
            return p.length() > PREFIX_CHARS ? p.substring(0, PREFIX_CHARS) : p;
        }
        return null;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
