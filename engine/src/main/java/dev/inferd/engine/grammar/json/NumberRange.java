package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import static dev.inferd.engine.grammar.Expr.oneByte;
import static dev.inferd.engine.grammar.Expr.optional;
import static dev.inferd.engine.grammar.Expr.repeat;
import static dev.inferd.engine.grammar.Expr.seq;

/**
 * Numbers between integral bounds, written {@code -?I(.F)?} (no exponent): the integer part {@code I}
 * decides, and at a bound the fraction must be zero (inclusive upper), non-zero (exclusive lower),
 * or anything. Bounds that are not integers raise {@link UnsupportedSchemaException}.
 */
final class NumberRange {
    private static final int ZERO = 1;
    private static final int NONZERO = 2;
    private static final int ANY = ZERO | NONZERO;
    private static final int FRACTION_DIGITS = 8;

    private NumberRange() {
    }

    static Expr of(BigDecimal lo, boolean loExclusive, BigDecimal hi, boolean hiExclusive, String path) {
        long largest = JsonPieces.largestMagnitude();
        Long l = integral(lo, "minimum", path, largest);
        Long h = integral(hi, "maximum", path, largest);
        var options = new ArrayList<Expr>();
        // x >= 0, written without a sign
        if (h == null || h > 0 || (h == 0 && !hiExclusive)) {
            boolean below = l == null || l < 0;
            Expr part = magnitudes(below ? 0 : l, !below && loExclusive, h == null ? largest : h, h != null && hiExclusive, h == null);
            if (part != null) options.add(part);
        }
        // x < 0, written as '-' and its magnitude, which is above 0
        if (l == null || l < 0) {
            boolean above = h != null && h < 0;
            Expr part = magnitudes(above ? -h : 0, !above || hiExclusive, l == null ? largest : -l, l != null && loExclusive, l == null);
            if (part != null) options.add(seq(oneByte('-'), part));
        }
        if (options.isEmpty()) throw new UnsupportedSchemaException("minimum", path, "no number lies between the bounds");
        return Expr.alt(options);
    }

    private static Long integral(BigDecimal v, String keyword, String path, long largest) {
        if (v == null) return null;
        if (v.stripTrailingZeros().scale() > 0) {
            throw new UnsupportedSchemaException(keyword, path + "/" + keyword, "a bound of a number must be an integer to be enforced");
        }
        return v.max(BigDecimal.valueOf(-largest)).min(BigDecimal.valueOf(largest)).longValueExact();
    }

    /** Magnitudes {@code I.F} in {@code [a, b]} (each end inclusive or not), or null when there are none. */
    private static Expr magnitudes(long a, boolean aExclusive, long b, boolean bExclusive, boolean unbounded) {
        int atA = aExclusive ? NONZERO : ANY;
        int atB = unbounded ? ANY : bExclusive ? 0 : ZERO;
        List<Expr> pieces = new ArrayList<>();
        if (a > b) return null;
        if (a == b) {
            add(pieces, a, a, atA & atB);
        } else if (unbounded) {
            add(pieces, a, a, atA);
            add(pieces, a + 1, b, ANY);
        } else {
            add(pieces, a, a, atA);
            if (b - a >= 2) add(pieces, a + 1, b - 1, ANY);
            add(pieces, b, b, atB);
        }
        return pieces.isEmpty() ? null : Expr.alt(pieces);
    }

    private static void add(List<Expr> pieces, long from, long to, int fraction) {
        if (fraction == 0) return;
        Expr integer = JsonPieces.unsignedRange(from, to);
        Expr digits = repeat(JsonPieces.DIGIT, 0, FRACTION_DIGITS);
        Expr f = switch (fraction) {
            case ZERO -> optional(seq(oneByte('.'), repeat(oneByte('0'), 1, FRACTION_DIGITS)));
            case NONZERO -> seq(oneByte('.'), digits, JsonPieces.NONZERO_DIGIT, digits);
            default -> optional(seq(oneByte('.'), repeat(JsonPieces.DIGIT, 1, FRACTION_DIGITS)));
        };
        pieces.add(seq(integer, f));
    }
}
