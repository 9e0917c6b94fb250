package dev.inferd.server.store;

/**
 * The text columns' limits, held in Java so that SQLite (which stores any length and any character) and
 * PostgreSQL (which refuses a value longer than its VARCHAR, and any NUL) treat a value the same way: a value
 * that does not fit is refused here with {@link IllegalArgumentException}, and a lookup by one finds nothing.
 */
public final class Columns {

    public static final int ACCOUNT_NAME = 200;
    public static final int EMAIL = 320;
    public static final int KEY_NAME = 200;

    private Columns() {
    }

    /**
     * Whether the text can be stored and compared alike on both databases: no control character (NUL above all)
     * and no half of a surrogate pair (which has no UTF-8 encoding).
     */
    public static boolean isStorable(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) return false;
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) return false;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** @throws IllegalArgumentException when {@code value} is longer than {@code max} or not storable */
    static String require(String what, String value, int max) {
        if (value.length() > max) throw new IllegalArgumentException(what + " may have at most " + max + " characters");
        if (!isStorable(value)) throw new IllegalArgumentException(what + " may not contain control characters");
        return value;
    }
}
