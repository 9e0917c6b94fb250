package dev.inferd.server.anthropic;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The {@code signature} of a thinking block. Anthropic's lets its API check that thinking sent back is
 * unchanged; this server does not show earlier thinking to the model again, so nothing needs checking, but
 * clients expect a non-empty opaque string: the SHA-256 of the thinking text, in base64.
 */
public final class ThinkingSignature {

    private ThinkingSignature() {
    }

    public static String of(String thinking) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(thinking.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
