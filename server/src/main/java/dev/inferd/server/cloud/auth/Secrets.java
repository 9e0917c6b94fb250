package dev.inferd.server.cloud.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * API key secrets and session tokens: 256 random bits from {@link SecureRandom}, written as {@code sk-} and 43
 * URL-safe base64 characters. Only a SHA-256 of a secret is stored: a key this random cannot be guessed from its
 * hash, so a slow password hash would only slow every request down.
 */
public final class Secrets {

    public static final String KEY_PREFIX = "sk-";
    /** How much of a key is kept in the clear to recognise it: {@code sk-} and 6 characters. */
    public static final int VISIBLE_LENGTH = KEY_PREFIX.length() + 6;
    private static final int RANDOM_BYTES = 32;
    private static final Pattern KEY_SHAPE = Pattern.compile("sk-[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {
    }

    /** A new API key secret, to be shown once. */
    public static String newApiKey() {
        return KEY_PREFIX + randomToken();
    }

    /** 256 random bits, URL-safe base64 without padding (43 characters). */
    public static String randomToken() {
        byte[] bytes = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** True when the text has the shape of a key this server issues; says nothing about whether it is valid. */
    public static boolean looksLikeApiKey(String secret) {
        return secret != null && KEY_SHAPE.matcher(secret).matches();
    }

    /** The part of a key shown in lists: {@code sk-} and its next 6 characters. */
    public static String visiblePrefix(String secret) {
        return secret.substring(0, VISIBLE_LENGTH);
    }

    /** Hex SHA-256 of the secret: what the database holds. */
    public static String hash(String secret) {
        return HexFormat.of().formatHex(sha256(secret));
    }

    /** Compares a secret with a stored hash in time that does not depend on where they differ. */
    public static boolean matches(String secret, String storedHash) {
        return MessageDigest.isEqual(sha256(secret), HexFormat.of().parseHex(storedHash));
    }

    private static byte[] sha256(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
