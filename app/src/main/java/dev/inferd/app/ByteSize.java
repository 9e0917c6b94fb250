package dev.inferd.app;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.math.BigDecimal;
import java.util.Locale;

/** Sizes given on the command line: plain bytes, or with a k/m/g/t suffix (powers of 1024), e.g. 512m, 2g. */
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
            BigDecimal bytes = new BigDecimal(number).multiply(BigDecimal.valueOf(1L << shift));
            if (bytes.signum() < 0) throw new NumberFormatException();
            if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
                throw new IllegalArgumentException("'" + text + "' is too large a size");
            }
            return bytes.longValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size (examples: 2g, 512m, 1073741824)");
        }
    }

    /** picocli's reading of a SIZE option into a {@code long} of bytes. */
    static final class Converter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
