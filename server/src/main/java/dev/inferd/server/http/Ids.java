package dev.inferd.server.http;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Random identifiers in OpenAI's shapes. */
final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHANUMERIC =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private Ids() {
    }

    /** {@code req_} and 32 lower-case hex digits, as OpenAI's {@code x-request-id}. */
    static String requestId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return "req_" + HexFormat.of().formatHex(bytes);
    }

    static String chatCompletionId() {
        return "chatcmpl-" + alphanumeric(29);
    }

    static String completionId() {
        return "cmpl-" + alphanumeric(29);
    }

    private static String alphanumeric(int length) {
        char[] out = new char[length];
        for (int i = 0; i < length; i++) out[i] = ALPHANUMERIC[RANDOM.nextInt(ALPHANUMERIC.length)];
        return new String(out);
    }
}
