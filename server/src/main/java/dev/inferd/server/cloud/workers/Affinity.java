package dev.inferd.server.cloud.workers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.http.ServerRequest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The key that keeps one conversation on the worker holding its prefix in its KV cache: the client's session
 * header ({@value #SESSION_HEADER}) or {@code prompt_cache_key} when it sends one, else a hash of the prompt's start
 * (the first messages, or the first characters of a completion's prompt).
 */
final class Affinity {

    static final String SESSION_HEADER = "x-session-id";
    /** The prompt's start that is hashed: enough to tell conversations apart, short enough to hash at once. */
    private static final int PREFIX_CHARS = 2048;

    private Affinity() {
    }

    /** The request's key, or null when it has nothing to key on. */
    static String of(ServerRequest request, JsonNode body) {
        String session = request.header(SESSION_HEADER);
        if (session != null && !session.isBlank()) return "s:" + session.strip();
        JsonNode cacheKey = body.get("prompt_cache_key");
        if (cacheKey != null && cacheKey.isTextual() && !cacheKey.asText().isBlank()) return "k:" + cacheKey.asText();
        String start = promptStart(body);
        return start == null ? null : "p:" + sha256(start);
    }

    private static String promptStart(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages != null && messages.isArray() && !messages.isEmpty()) {
            var text = new StringBuilder();
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
