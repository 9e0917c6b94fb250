package dev.inferd.server.conversation;

import java.security.SecureRandom;

/** Ids for the calls a model writes: {@code call_} and 24 letters and digits, unique in practice. */
public final class ToolCallIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHANUMERIC =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private ToolCallIds() {
    }

    public static String next() {
        return "call_" + alphanumeric(24);
    }

    /** {@code length} random letters and digits. */
    public static String alphanumeric(int length) {
        char[] out = new char[length];
        for (int i = 0; i < length; i++) out[i] = ALPHANUMERIC[RANDOM.nextInt(ALPHANUMERIC.length)];
        return new String(out);
    }
}
