package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;
import dev.inferd.engine.grammar.Utf8;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A set of code points as sorted, disjoint, non-adjacent {@code [lo, hi]} ranges. */
record CodePointSet(int[] ranges) {
    static final CodePointSet EMPTY = new CodePointSet(new int[0]);
    static final CodePointSet ALL = of(0, Utf8.MAX);

    static CodePointSet of(int... loHi) {
        var list = new ArrayList<int[]>();
        for (int i = 0; i < loHi.length; i += 2) list.add(new int[] {loHi[i], loHi[i + 1]});
        return normalize(list);
    }

    static CodePointSet single(int cp) {
        return of(cp, cp);
    }

    CodePointSet union(CodePointSet other) {
        var list = new ArrayList<int[]>();
        for (int i = 0; i < ranges.length; i += 2) list.add(new int[] {ranges[i], ranges[i + 1]});
        for (int i = 0; i < other.ranges.length; i += 2) list.add(new int[] {other.ranges[i], other.ranges[i + 1]});
        return normalize(list);
    }

    CodePointSet complement() {
        var out = new ArrayList<int[]>();
        int next = 0;
        for (int i = 0; i < ranges.length; i += 2) {
            if (ranges[i] > next) out.add(new int[] {next, ranges[i] - 1});
            next = ranges[i + 1] + 1;
        }
        if (next <= Utf8.MAX) out.add(new int[] {next, Utf8.MAX});
        return normalize(out);
    }

    CodePointSet minus(CodePointSet other) {
        return complement().union(other).complement();
    }

    boolean contains(int cp) {
        for (int i = 0; i < ranges.length; i += 2) if (cp >= ranges[i] && cp <= ranges[i + 1]) return true;
        return false;
    }

    boolean isEmpty() {
        return ranges.length == 0;
    }

    private static CodePointSet normalize(List<int[]> list) {
        list.sort((a, b) -> Integer.compare(a[0], b[0]));
        var out = new ArrayList<int[]>();
        for (int[] r : list) {
            if (r[0] > r[1]) continue;
            if (!out.isEmpty() && r[0] <= out.getLast()[1] + 1) {
                out.getLast()[1] = Math.max(out.getLast()[1], r[1]);
            } else {
                out.add(new int[] {r[0], r[1]});
            }
        }
        int[] flat = new int[out.size() * 2];
        for (int i = 0; i < out.size(); i++) {
            flat[2 * i] = out.get(i)[0];
            flat[2 * i + 1] = out.get(i)[1];
        }
        return new CodePointSet(flat);
    }

    private static final CodePointSet NEEDS_ESCAPE = of(0, 0x1F, '"', '"', '\\', '\\');
    /** Surrogates are no characters; they never appear in output. */
    private static final CodePointSet SURROGATES = of(0xD800, 0xDFFF);

    /**
     * One character of the set as it appears inside a JSON string: raw UTF-8, or the escape JSON
     * requires for quotes, backslashes and control characters. Null when the set has no character.
     */
    Expr asJsonStringChar() {
        var options = new ArrayList<Expr>();
        CodePointSet raw = minus(NEEDS_ESCAPE).minus(SURROGATES);
        if (!raw.isEmpty()) options.add(Utf8.codePoints(raw.ranges));
        for (int c = 0; c < 0x20; c++) {
            if (contains(c)) options.add(Expr.literal(JsonText.string(String.valueOf((char) c)).substring(1, JsonText.string(String.valueOf((char) c)).length() - 1)));
        }
        if (contains('"')) options.add(Expr.literal("\\\""));
        if (contains('\\')) options.add(Expr.literal("\\\\"));
        return options.isEmpty() ? null : Expr.alt(options);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodePointSet s && Arrays.equals(ranges, s.ranges);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ranges);
    }
}
