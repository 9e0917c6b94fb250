package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;

import java.util.Map;

/**
 * The string {@code format}s the compiler enforces, each as a regular expression of the supported
 * subset. Each admits only valid values, sometimes fewer than the format allows (so that a strict
 * validator accepts every one): dates have days 01-28 in February, years 1000-2999; times carry an
 * offset as RFC 3339 requires; e-mail addresses are plain ASCII {@code local@domain.tld} with a
 * common top-level domain (validators check it against the registry's list).
 */
final class StringFormats {
    private static final String DATE = "[12]\\d{3}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])"
            + "|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))";
    private static final String TIME = "(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,6})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)";
    private static final String OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
    private static final Map<String, String> PATTERNS = Map.of(
            "date", "^" + DATE + "$",
            "time", "^" + TIME + "$",
            "date-time", "^" + DATE + "T" + TIME + "$",
            "uuid", "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
            "email", "^[A-Za-z0-9_+-]{1,20}(?:\\.[A-Za-z0-9_+-]{1,20}){0,2}@[a-z0-9]{1,20}(?:\\.[a-z0-9]{1,20}){0,2}\\.(?:com|org|net|io|dev|edu|info|de|fr|jp)$",
            "ipv4", "^" + OCTET + "(?:\\." + OCTET + "){3}$");

    private StringFormats() {
    }

    /** The string content for a format, or null when the format is not supported. */
    static Expr content(String format, String pointer) {
        String regex = PATTERNS.get(format);
        return regex == null ? null : RegexSubset.compile(regex, pointer);
    }

    static java.util.Set<String> supported() {
        return PATTERNS.keySet();
    }
}
