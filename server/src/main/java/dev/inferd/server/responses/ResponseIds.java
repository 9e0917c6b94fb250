package dev.inferd.server.responses;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Ids in OpenAI's shapes: a prefix ({@code resp}, {@code msg}, {@code rs}, {@code fc}, {@code ctc}) and 48 hex digits. */
public final class ResponseIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private ResponseIds() {
    }

    public static String next(String prefix) {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return prefix + "_" + HexFormat.of().formatHex(bytes);
    }
}
