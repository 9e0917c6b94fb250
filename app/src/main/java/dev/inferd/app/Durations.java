package dev.inferd.app;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Durations given on the command line, written one way by every command: a number and a unit (500ms, 30s, 10m,
 * 24h, 7d). A bare number is seconds, as the options that took seconds accepted; ISO-8601 (PT24H) is read too.
 */
final class Durations {
    /** Beyond this a duration no longer fits a count of milliseconds; each option bounds its own further. */
    private static final BigDecimal MAX_MILLIS = BigDecimal.valueOf(Long.MAX_VALUE);

    private Durations() {
    }

    static Duration parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("p")) return iso(text, s);
        long unitMillis;
        String number;
        if (s.endsWith("ms")) {
            unitMillis = 1;
            number = s.substring(0, s.length() - 2);
        } else {
            unitMillis = switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
                case 's' -> 1_000;
                case 'm' -> 60_000;
                case 'h' -> 3_600_000;
                case 'd' -> 86_400_000;
                default -> 0;
            };
            number = unitMillis == 0 ? s : s.substring(0, s.length() - 1);
            if (unitMillis == 0) unitMillis = 1_000;
        }
        BigDecimal millis;
        try {
            millis = new BigDecimal(number.strip()).multiply(BigDecimal.valueOf(unitMillis));
        } catch (NumberFormatException e) {
            throw notADuration(text);
        }
        if (millis.signum() < 0) throw new IllegalArgumentException("'" + text + "' is negative; a duration is 0 or more");
        if (millis.compareTo(MAX_MILLIS) > 0) throw new IllegalArgumentException("'" + text + "' is too long a duration");
        return Duration.ofMillis(millis.setScale(0, RoundingMode.HALF_UP).longValueExact());
    }

    private static Duration iso(String text, String s) {
        try {
            Duration d = Duration.parse(s);
            if (d.isNegative()) throw new IllegalArgumentException("'" + text + "' is negative; a duration is 0 or more");
            return d;
        } catch (DateTimeParseException | ArithmeticException e) {
            throw notADuration(text);
        }
    }

    private static IllegalArgumentException notADuration(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration (examples: 500ms, 30s, 10m, 24h, 7d)");
    }

    /** Writes a duration back the same way, e.g. for start-up lines: 30s, 10m, 24h, 1500ms. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) return ms / 86_400_000 + "d";
        if (ms % 3_600_000 == 0 && ms > 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0 && ms > 0) return ms / 60_000 + "m";
        if (ms % 1_000 == 0) return ms / 1_000 + "s";
        return ms + "ms";
    }

    /** picocli's reading of a DURATION option. */
    static final class Converter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
