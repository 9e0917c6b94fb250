package dev.inferd.server.store;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Row ids made by the application, the same on every database: a type prefix and 96 random bits. */
public final class RowIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private RowIds() {
    }

    /** {@code prefix_} and 24 hex digits, e.g. {@code key_3f9a...}. */
    public static String next(String prefix) {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return prefix + "_" + HexFormat.of().formatHex(bytes);
    }
}
