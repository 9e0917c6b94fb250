package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;
import dev.inferd.engine.grammar.Utf8;

import java.util.ArrayList;
import java.util.List;

import static dev.inferd.engine.grammar.Expr.alt;
import static dev.inferd.engine.grammar.Expr.literal;
import static dev.inferd.engine.grammar.Expr.oneByte;
import static dev.inferd.engine.grammar.Expr.optional;
import static dev.inferd.engine.grammar.Expr.range;
import static dev.inferd.engine.grammar.Expr.repeat;
import static dev.inferd.engine.grammar.Expr.seq;
import static dev.inferd.engine.grammar.Expr.star;

/**
 * The lexical pieces of JSON text as byte expressions: whitespace, string characters, numbers.
 *
 * <p>Numbers are bounded so that a model cannot spin on digits: at most {@link #MAX_INTEGER_DIGITS}
 * digits before the point, {@link #MAX_FRACTION_DIGITS} after it, and a two-digit exponent. Every
 * output is still valid JSON; these only narrow what is produced.
 */
final class JsonPieces {
    static final int MAX_INTEGER_DIGITS = 16;
    static final int MAX_FRACTION_DIGITS = 16;

    static final Expr QUOTE = oneByte('"');
    static final Expr DIGIT = range('0', '9');
    static final Expr NONZERO_DIGIT = range('1', '9');
    private static final Expr HEX = alt(range('0', '9'), range('a', 'f'), range('A', 'F'));
    /** Four hex digits that are not a surrogate (D800-DFFF): a lone surrogate is no character. */
    private static final Expr HEX4_NOT_SURROGATE = alt(
            seq(alt(range('0', '9'), range('a', 'c'), range('A', 'C'), range('e', 'f'), range('E', 'F')), HEX, HEX, HEX),
            seq(alt(oneByte('d'), oneByte('D')), range('0', '7'), HEX, HEX));
    private static final Expr ESCAPE = seq(oneByte('\\'), alt(
            alt(oneByte('"'), oneByte('\\'), oneByte('/'), oneByte('b'), oneByte('f'), oneByte('n'), oneByte('r'), oneByte('t')),
            seq(oneByte('u'), HEX4_NOT_SURROGATE)));
    /** Any character as it may appear inside a JSON string: unescaped (not {@code "}, {@code \}, control) or escaped. */
    static final Expr STRING_CHAR = alt(Utf8.codePoints(new int[] {0x20, 0x21, 0x23, 0x5B, 0x5D, Utf8.MAX}), ESCAPE);
    static final Expr ANY_STRING = seq(QUOTE, star(STRING_CHAR), QUOTE);

    static final Expr UNSIGNED_INTEGER = alt(oneByte('0'), seq(NONZERO_DIGIT, repeat(DIGIT, 0, MAX_INTEGER_DIGITS - 1)));
    static final Expr INTEGER = seq(optional(oneByte('-')), UNSIGNED_INTEGER);
    static final Expr FRACTION = seq(oneByte('.'), repeat(DIGIT, 1, MAX_FRACTION_DIGITS));
    static final Expr EXPONENT = seq(alt(oneByte('e'), oneByte('E')), optional(alt(oneByte('+'), oneByte('-'))), repeat(DIGIT, 1, 2));
    static final Expr NUMBER = seq(INTEGER, optional(FRACTION), optional(EXPONENT));

    static final Expr TRUE = literal("true");
    static final Expr FALSE = literal("false");
    static final Expr NULL = literal("null");
    static final Expr BOOLEAN = alt(TRUE, FALSE);

    private JsonPieces() {
    }

    /** Whitespace between JSON tokens: none, one space, or a line break and an indent of up to {@code maxIndent} spaces and tabs. */
    static Expr whitespace(int maxIndent) {
        Expr lineBreak = seq(optional(oneByte('\r')), oneByte('\n'), repeat(alt(oneByte(' '), oneByte('\t')), 0, maxIndent));
        return optional(alt(oneByte(' '), lineBreak));
    }

    /** A JSON string of {@code min..max} characters ({@code max} -1: no bound). */
    static Expr string(int min, int max) {
        return seq(QUOTE, repeat(STRING_CHAR, min, max), QUOTE);
    }

    /**
     * A decimal integer in {@code [lo, hi]}, without leading zeros or {@code -0}. Both bounds within
     * {@code ±(10^MAX_INTEGER_DIGITS - 1)}.
     */
    static Expr integerRange(long lo, long hi) {
        var options = new ArrayList<Expr>();
        if (hi >= 0) options.add(unsignedRange(Math.max(lo, 0), hi));
        if (lo < 0) options.add(seq(oneByte('-'), unsignedRange(Math.max(-hi, 1), -lo)));
        return alt(options);
    }

    /** Largest magnitude an integer is written with when a bound is absent. */
    static long largestMagnitude() {
        long v = 1;
        for (int i = 0; i < MAX_INTEGER_DIGITS; i++) v *= 10;
        return v - 1;
    }

    /** {@code [lo, hi]}, {@code 0 <= lo <= hi}, as decimal digits. */
    static Expr unsignedRange(long lo, long hi) {
        var options = new ArrayList<Expr>();
        String a = Long.toString(lo);
        String b = Long.toString(hi);
        if (hi == largestMagnitude() && a.length() < b.length()) {
            // no upper bound: every longer number in one expression
            options.add(sameLength(a, "9".repeat(a.length())));
            options.add(seq(NONZERO_DIGIT, repeat(DIGIT, a.length(), MAX_INTEGER_DIGITS - 1)));
            return alt(options);
        }
        for (int len = a.length(); len <= b.length(); len++) {
            long from = len == a.length() ? lo : pow10(len - 1);
            long to = len == b.length() ? hi : pow10(len) - 1;
            options.add(sameLength(Long.toString(from), Long.toString(to)));
        }
        return alt(options);
    }

    private static long pow10(int n) {
        long v = 1;
        for (int i = 0; i < n; i++) v *= 10;
        return v;
    }

    /** Digit strings of one length between {@code x} and {@code y} (same length, x <= y). */
    private static Expr sameLength(String x, String y) {
        int n = x.length();
        if (n == 0) return Expr.EMPTY;
        char x0 = x.charAt(0);
        char y0 = y.charAt(0);
        String xr = x.substring(1);
        String yr = y.substring(1);
        if (x0 == y0) return seq(oneByte(x0), sameLength(xr, yr));
        if (xr.chars().allMatch(c -> c == '0') && yr.chars().allMatch(c -> c == '9')) {
            return seq(range(x0, y0), repeat(DIGIT, n - 1, n - 1));
        }
        List<Expr> options = new ArrayList<>();
        options.add(seq(oneByte(x0), sameLength(xr, "9".repeat(n - 1))));
        if (y0 - x0 > 1) options.add(seq(range(x0 + 1, y0 - 1), repeat(DIGIT, n - 1, n - 1)));
        options.add(seq(oneByte(y0), sameLength("0".repeat(n - 1), yr)));
        return alt(options);
    }
}
