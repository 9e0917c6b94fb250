package dev.inferd.server.cloud.auth;

import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.openai.ApiError;

/**
 * The operator's token, which the admin API and {@code /metrics} want as {@code Authorization: Bearer TOKEN}: kept
 * as a SHA-256 and compared in constant time. Without a configured token both are closed (403).
 */
public final class OperatorToken {

    private final String hash;

    /** @param token null or blank for none */
    public OperatorToken(String token) {
        this.hash = token == null || token.isBlank() ? null : Secrets.hash(token);
    }

    public boolean isConfigured() {
        return hash != null;
    }

    /**
     * @param what what the token opens, for the message when none is configured ("The admin API")
     * @throws ApiError 403 when no token is configured, 401 when the request does not present it (or presents
     *                  ambiguous credentials)
     */
    public void check(ServerRequest request, String what) {
        if (hash == null) {
            throw Authenticator.forbidden(what + " is off: start the server with an operator token "
                    + "(operator_token in --config, or INFERD_OPERATOR_TOKEN).");
        }
        String presented = Credentials.secret(request);
        if (presented == null || !Secrets.matches(presented, hash)) {
            throw Authenticator.unauthenticated("A valid operator token is required.", "invalid_operator_token");
        }
    }
}
