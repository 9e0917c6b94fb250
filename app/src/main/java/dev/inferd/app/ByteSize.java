package dev.inferd.app;

import java.util.Locale;

/** Sizes given on the command line: plain bytes, or with a k/m/g/t suffix (powers of 1024). */
final class ByteSize {
    private ByteSize() {
    }

    /** "0" or blank means "not set" and gives 0. */
    static long parse(String text) {
        if (text == null || text.isBlank()) return 0;
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (s.endsWith("b")) s = s.substring(0, s.length() - 1);
        int shift = switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        String number = shift == 0 ? s : s.substring(0, s.length() - 1);
        try {
            double value = Double.parseDouble(number);
            if (value < 0 || Double.isNaN(value)) throw new NumberFormatException();
            return (long) (value * (1L << shift));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size (examples: 2g, 512m, 1073741824)");
        }
    }
}
