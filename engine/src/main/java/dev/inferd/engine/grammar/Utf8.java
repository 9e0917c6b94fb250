package dev.inferd.engine.grammar;

import java.util.ArrayList;
import java.util.List;

/**
 * Ranges of Unicode scalar values as byte expressions: {@code [lo, hi]} becomes an alternative of
 * byte-range sequences that match exactly the well-formed UTF-8 encodings of those code points
 * (surrogates excluded), split so that every sequence's bytes vary independently.
 */
public final class Utf8 {
    public static final int MAX = 0x10FFFF;
    private static final int[] LENGTH_LIMITS = {0x7F, 0x7FF, 0xFFFF};

    private Utf8() {
    }

    /** Any one code point in {@code [lo, hi]} (surrogates never match). */
    public static Expr codePoints(int lo, int hi) {
        var sequences = new ArrayList<Expr>();
        split(lo, Math.min(hi, MAX), sequences);
        if (sequences.isEmpty()) throw new IllegalArgumentException("no code point in " + lo + ".." + hi);
        return Expr.alt(sequences);
    }

    /** Any one code point in any of the ranges, given as {@code [lo0, hi0, lo1, hi1, ...]}. */
    public static Expr codePoints(int[] ranges) {
        var sequences = new ArrayList<Expr>();
        for (int i = 0; i < ranges.length; i += 2) split(ranges[i], Math.min(ranges[i + 1], MAX), sequences);
        if (sequences.isEmpty()) throw new IllegalArgumentException("an empty set of code points");
        return Expr.alt(sequences);
    }

    private static void split(int lo, int hi, List<Expr> out) {
        if (lo > hi) return;
        if (lo <= 0xDFFF && hi >= 0xD800) {
            split(lo, 0xD7FF, out);
            split(0xE000, hi, out);
            return;
        }
        for (int limit : LENGTH_LIMITS) {
            if (lo <= limit && hi > limit) {
                split(lo, limit, out);
                split(limit + 1, hi, out);
                return;
            }
        }
        if (hi < 0x80) {
            out.add(Expr.range(lo, hi));
            return;
        }
        int n = length(lo);
        for (int i = 1; i < n; i++) {
            int mask = (1 << (6 * i)) - 1;
            if ((lo & ~mask) != (hi & ~mask)) {
                if ((lo & mask) != 0) {
                    split(lo, lo | mask, out);
                    split((lo | mask) + 1, hi, out);
                    return;
                }
                if ((hi & mask) != mask) {
                    split(lo, (hi & ~mask) - 1, out);
                    split(hi & ~mask, hi, out);
                    return;
                }
            }
        }
        int[] a = encode(lo);
        int[] b = encode(hi);
        var items = new ArrayList<Expr>(n);
        for (int i = 0; i < n; i++) items.add(Expr.range(a[i], b[i]));
        out.add(Expr.seq(items));
    }

    static int length(int cp) {
        return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }

    static int[] encode(int cp) {
        return switch (length(cp)) {
            case 1 -> new int[] {cp};
            case 2 -> new int[] {0xC0 | cp >> 6, 0x80 | cp & 0x3F};
            case 3 -> new int[] {0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F};
            default -> new int[] {0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F};
        };
    }
}
