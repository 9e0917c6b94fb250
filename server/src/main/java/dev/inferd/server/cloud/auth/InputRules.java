package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.Columns;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * What the dashboard, the admin API and the CLI accept, checked in Java before anything reaches the database, so
 * that SQLite and PostgreSQL see the same rules (SQLite would store a too long e-mail, PostgreSQL would refuse it)
 * and a mistake is a one-line message, never a stack trace or an SQL error. Every check throws
 * {@link IllegalArgumentException} with a message that names the field and the allowed range.
 *
 * <p>An expiry given as a date means the key works through that whole day in UTC: {@code 2027-01-31} ends at
 * {@code 2027-02-01T00:00:00Z}. An instant or epoch milliseconds ends exactly then.
 */
public final class InputRules {

    /** Requests per second a key or account may be given. */
    public static final int MAX_RATE_LIMIT = 100_000;
    /** How long a rotated-out secret may stay valid. */
    public static final Duration MAX_GRACE = Duration.ofDays(365);
    /** How far ahead an expiry may be. */
    public static final int MAX_EXPIRY_YEARS = 100;
    /** RFC 5321's limit on a forward path, which makes it the longest usable e-mail address. */
    public static final int MAX_EMAIL = 254;
    public static final int MAX_ACCOUNT_NAME = 100;
    public static final int MAX_KEY_NAME = 200;
    public static final int MAX_SCOPE_ITEMS = 100;
    public static final int MAX_SCOPE_ITEM = 200;
    /** Dates and instants outside [1970, 10000) are refused: nothing stored is older, and years past 9999 overflow. */
    private static final long MIN_MILLIS = 0;
    private static final long MAX_MILLIS = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private InputRules() {
    }

    /** @return the name, when it is 1 to 100 letters, digits, '.', '_' or '-' starting with a letter or digit */
    public static String accountName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_ACCOUNT_NAME - 1) + "}")) {
            throw new IllegalArgumentException("an account name is 1 to " + MAX_ACCOUNT_NAME
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

    /** @return the address in lower case */
    public static String email(String email) {
        if (email == null || email.isBlank()) throw new IllegalArgumentException("an e-mail address is required");
        if (email.length() > MAX_EMAIL) {
            throw new IllegalArgumentException("an e-mail address may have at most " + MAX_EMAIL + " characters");
        }
        if (!email.matches("[^@\\s\\p{Cntrl}]+@[^@\\s\\p{Cntrl}]+") || !isWellFormed(email)) {
            throw new IllegalArgumentException("not an e-mail address: " + printable(email));
        }
        return email.toLowerCase(java.util.Locale.ROOT);
    }

    public static String keyName(String name) {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a key needs a name");
        return text("a key's name", name, MAX_KEY_NAME);
    }

    /** Model ids or endpoint names of a key's scopes: at most 100, each 1 to 200 printable characters. */
    public static List<String> scopeItems(String what, List<String> items) {
        if (items.size() > MAX_SCOPE_ITEMS) throw new IllegalArgumentException("at most " + MAX_SCOPE_ITEMS + " " + what);
        for (String item : items) {
            if (item == null || item.isBlank()) throw new IllegalArgumentException("an empty entry in " + what);
            text(what, item, MAX_SCOPE_ITEM);
        }
        return items;
    }

    /**
     * Free text bound for a column: at most {@code max} characters, no control characters (PostgreSQL refuses NUL
     * in text, SQLite stores it) and no half of a surrogate pair.
     */
    public static String text(String what, String value, int max) {
        if (value.length() > max) throw new IllegalArgumentException(what + " may have at most " + max + " characters");
        if (!isWellFormed(value)) throw new IllegalArgumentException(what + " may not contain control characters");
        return value;
    }

    /**
     * Whether the text could be stored or looked up the same way on SQLite and PostgreSQL: no control character and
     * no unpaired surrogate. Lookups of anything else find nothing rather than fail.
     */
    public static boolean isWellFormed(String value) {
        return Columns.isStorable(value);
    }

    /** @return the limit, or null for none; refused outside 1 to {@link #MAX_RATE_LIMIT} */
    public static Integer rateLimit(Integer requestsPerSecond) {
        if (requestsPerSecond != null && (requestsPerSecond < 1 || requestsPerSecond > MAX_RATE_LIMIT)) {
            throw new IllegalArgumentException("a rate limit is 1 to " + MAX_RATE_LIMIT + " requests per second");
        }
        return requestsPerSecond;
    }

    /** A rate limit typed as text (a form field, a query): null when blank. */
    public static Integer rateLimit(String text) {
        if (text == null || text.isBlank()) return null;
        return rateLimit((int) integer("a rate limit", text, 1, MAX_RATE_LIMIT, "requests per second"));
    }

    /** @return the grace period, when it is 0 to {@link #MAX_GRACE} */
    public static Duration grace(Duration grace) {
        if (grace == null || grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
            throw new IllegalArgumentException("a grace period is 0 to " + MAX_GRACE.toDays() + " days (8760 hours)");
        }
        return grace;
    }

    /** A whole number typed as text, within [min, max]; {@code unit} completes the message. */
    public static long integer(String what, String text, long min, long max, String unit) {
        String range = what + " is a whole number from " + min + " to " + max + " " + unit;
        if (text == null || !text.strip().matches("[+-]?[0-9]{1,19}")) throw new IllegalArgumentException(range);
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(range);
        }
        if (value < min || value > max) throw new IllegalArgumentException(range);
        return value;
    }

    /**
     * The end of a key's life from a date ({@code 2027-01-31}: valid through that day, UTC), an instant
     * ({@code 2027-01-31T12:00:00Z}) or epoch milliseconds; null when blank.
     */
    public static Long expiry(String text) {
        if (text == null || text.isBlank()) return null;
        String t = text.strip();
        if (isDate(t)) return parseDate("an expiry", t).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return instant("an expiry", t);
    }

    /**
     * Refuses an expiry that is already past (the key would be expired at birth) or more than
     * {@link #MAX_EXPIRY_YEARS} years ahead.
     */
    public static Long requireFutureExpiry(Long expiresAt, long now) {
        if (expiresAt == null) return null;
        if (expiresAt <= now) {
            throw new IllegalArgumentException("the expiry " + Instant.ofEpochMilli(expiresAt)
                    + " is already past: the key would be expired at creation (a date is valid through its last day, UTC)");
        }
        long latest = Instant.ofEpochMilli(now).atZone(ZoneOffset.UTC).plusYears(MAX_EXPIRY_YEARS).toInstant().toEpochMilli();
        if (expiresAt > latest) {
            throw new IllegalArgumentException("an expiry may be at most " + MAX_EXPIRY_YEARS + " years ahead");
        }
        return expiresAt;
    }

    /** The start of a period: a date (its first moment, UTC), an instant or epoch milliseconds; null when blank. */
    public static Long periodStart(String text) {
        if (text == null || text.isBlank()) return null;
        String t = text.strip();
        if (isDate(t)) return parseDate("a period's start", t).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return instant("a period's start", t);
    }

    /** The exclusive end of a period given the same way as its start: a date is its first moment, UTC. */
    public static Long periodEnd(String text) {
        if (text == null || text.isBlank()) return null;
        String t = text.strip();
        if (isDate(t)) return parseDate("a period's end", t).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return instant("a period's end", t);
    }

    /** A calendar date, {@code yyyy-MM-dd}, from 1970 to 9999. */
    public static LocalDate date(String what, String text) {
        if (text == null || !isDate(text.strip())) throw new IllegalArgumentException(what + " is a date, yyyy-mm-dd");
        return parseDate(what, text.strip());
    }

    private static boolean isDate(String t) {
        return t.length() == 10 && t.charAt(4) == '-' && t.charAt(7) == '-';
    }

    private static LocalDate parseDate(String what, String t) {
        try {
            LocalDate date = LocalDate.parse(t);
            if (date.getYear() < 1970) throw new IllegalArgumentException(what + " is a date in 1970 or later: " + t);
            return date;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + " is not a date (yyyy-mm-dd, a real day of the calendar): " + printable(t));
        }
    }

    private static long instant(String what, String t) {
        String usage = what + " is a date (2027-01-31), an ISO-8601 instant (2027-01-31T12:00:00Z) or epoch milliseconds"
                + " between 1970 and 9999: " + printable(t);
        long millis;
        try {
            if (t.matches("[0-9]{1,19}")) millis = Long.parseLong(t);
            else millis = Instant.parse(t).toEpochMilli();
        } catch (DateTimeException | ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(usage);
        }
        if (millis < MIN_MILLIS || millis > MAX_MILLIS) throw new IllegalArgumentException(usage);
        return millis;
    }

    /** User text for a message: cut short, control characters shown as '?'. */
    public static String printable(String text) {
        String cut = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        var out = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) || Character.isSurrogate((char) c) ? '?' : c));
        return out.toString();
    }
}
