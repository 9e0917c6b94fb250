package dev.inferd.server.cloud.auth;

import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.openai.ApiError;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * The one secret a request presents: {@code Authorization: Bearer SECRET} (OpenAI's clients), {@code x-api-key:
 * SECRET} (Anthropic's), or both naming the same secret. Anything that could mean two callers is a 401 before any
 * work: two {@code Authorization} headers (whichever came first would otherwise win), two {@code x-api-key}
 * headers, or the two headers naming different secrets. Messages never show a secret.
 */
public final class Credentials {

    public static final String AUTHORIZATION = "Authorization";
    public static final String API_KEY = "x-api-key";

    private Credentials() {
    }

    /** The secret presented, or null when the request presents none (no header, or only blank ones). */
    public static String secret(ServerRequest request) {
        List<String> authorization = present(request.headerValues(AUTHORIZATION));
        List<String> apiKey = present(request.headerValues(API_KEY));
        if (authorization.size() > 1) {
            throw ambiguous("The request has " + authorization.size() + " Authorization headers; send exactly one.");
        }
        if (apiKey.size() > 1) throw ambiguous("The request has " + apiKey.size() + " x-api-key headers; send exactly one.");
        String bearer = authorization.isEmpty() ? null : bearer(authorization.getFirst());
        String key = apiKey.isEmpty() ? null : apiKey.getFirst().strip();
        if (bearer != null && key != null && !MessageDigest.isEqual(bytes(bearer), bytes(key))) {
            throw ambiguous("The Authorization header and the x-api-key header name different keys; send one key.");
        }
        return bearer != null ? bearer : key;
    }

    private static List<String> present(List<String> values) {
        return values.stream().filter(v -> v != null && !v.isBlank()).toList();
    }

    private static String bearer(String authorization) {
        String trimmed = authorization.strip();
        if (trimmed.regionMatches(true, 0, "Bearer ", 0, 7)) return trimmed.substring(7).strip();
        throw Authenticator.unauthenticated("The Authorization header must be 'Bearer YOUR_KEY'.", "invalid_authorization_header");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ApiError ambiguous(String message) {
        return Authenticator.unauthenticated(message, "ambiguous_credentials");
    }
}
