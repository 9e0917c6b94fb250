package dev.inferd.server.cloud.auth;

import at.favre.lib.crypto.bcrypt.BCrypt;

import java.nio.charset.StandardCharsets;

/** Dashboard passwords, hashed with bcrypt (salted, and slow on purpose). */
public final class Passwords {

    /** 2^11 rounds: about a tenth of a second here, per sign-in. */
    private static final int COST = 11;
    /** bcrypt reads at most 72 bytes; a longer password is refused rather than cut silently. */
    public static final int MAX_BYTES = 72;
    public static final int MIN_LENGTH = 8;

    private Passwords() {
    }

    public static String hash(String password) {
        check(password);
        return BCrypt.withDefaults().hashToString(COST, password.toCharArray());
    }

    public static boolean verify(String password, String hash) {
        if (password == null || password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) return false;
        return BCrypt.verifyer().verify(password.toCharArray(), hash).verified;
    }

    /** @throws IllegalArgumentException for a password too short or too long */
    public static void check(String password) {
        if (password == null || password.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("a password needs at least " + MIN_LENGTH + " characters");
        }
        if (password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new IllegalArgumentException("a password may have at most " + MAX_BYTES + " bytes");
        }
    }
}
