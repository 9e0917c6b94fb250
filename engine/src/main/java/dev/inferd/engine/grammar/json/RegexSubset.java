package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;

import java.util.ArrayList;

/**
 * The regular expressions of {@code pattern} that the compiler enforces, as the JSON string content
 * they allow. The supported subset of ECMA-262 syntax:
 * <ul>
 *   <li>literal characters, {@code .} (any character but line terminators), escaped punctuation;</li>
 *   <li>classes {@code [a-z_]}, {@code [^...]}, and {@code \d \D \w \W \s \S}, {@code \t \n \r \f \v \0},
 *       {@code \x}<i>HH</i>, {@code \u005Cu}<i>HHHH</i>;</li>
 *   <li>groups {@code (...)}, {@code (?:...)}, {@code (?<name>...)}, alternation {@code |};</li>
 *   <li>quantifiers {@code * + ? {n} {n,} {n,m}}, greedy or lazy (the same set of strings), with
 *       counts up to {@value #MAX_COUNT};</li>
 *   <li>{@code ^} at the very start and {@code $} at the very end. As in JSON Schema, a pattern
 *       without them matches anywhere in the string, so any text may come before or after.</li>
 * </ul>
 * Anything else (backreferences, lookaround, word boundaries, Unicode properties, anchors inside)
 * raises {@link UnsupportedSchemaException}.
 */
final class RegexSubset {
    static final int MAX_COUNT = 1000;

    private static final CodePointSet DIGITS = CodePointSet.of('0', '9');
    private static final CodePointSet WORD = CodePointSet.of('0', '9', 'A', 'Z', '_', '_', 'a', 'z');
    private static final CodePointSet SPACE = CodePointSet.of('\t', '\r', ' ', ' ', 0xA0, 0xA0, 0x1680, 0x1680,
            0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF);
    private static final CodePointSet DOT = CodePointSet.of('\n', '\n', '\r', '\r', 0x2028, 0x2029).complement();

    private final String pattern;
    private final String pointer;
    private final int[] cps;
    private int i;

    private RegexSubset(String pattern, String pointer) {
        this.pattern = pattern;
        this.pointer = pointer;
        this.cps = pattern.codePoints().toArray();
    }

    /** The string content (between the quotes) whose decoded text the pattern matches. */
    static Expr compile(String pattern, String pointer) {
        return new RegexSubset(pattern, pointer).whole();
    }

    private Expr whole() {
        int end = cps.length;
        boolean anchoredStart = end > 0 && cps[0] == '^';
        boolean anchoredEnd = end > 0 && cps[end - 1] == '$' && !escapedAt(end - 1);
        if (anchoredStart) i = 1;
        int stop = anchoredEnd ? end - 1 : end;
        Expr body = alternation(stop);
        if (i != stop) throw unsupported("unexpected '" + Character.toString(cps[i]) + "' at offset " + i);
        Expr anyChar = JsonPieces.STRING_CHAR;
        var parts = new ArrayList<Expr>();
        if (!anchoredStart) parts.add(Expr.star(anyChar));
        parts.add(body);
        if (!anchoredEnd) parts.add(Expr.star(anyChar));
        return Expr.seq(parts);
    }

    private boolean escapedAt(int pos) {
        int backslashes = 0;
        for (int k = pos - 1; k >= 0 && cps[k] == '\\'; k--) backslashes++;
        return backslashes % 2 == 1;
    }

    private Expr alternation(int stop) {
        var options = new ArrayList<Expr>();
        options.add(concatenation(stop));
        while (i < stop && cps[i] == '|') {
            i++;
            options.add(concatenation(stop));
        }
        return Expr.alt(options);
    }

    private Expr concatenation(int stop) {
        var items = new ArrayList<Expr>();
        while (i < stop && cps[i] != '|' && cps[i] != ')') items.add(quantified(atom(stop), stop));
        return Expr.seq(items);
    }

    private Expr quantified(Expr atom, int stop) {
        if (i >= stop) return atom;
        int min;
        int max;
        switch (cps[i]) {
            case '*' -> { min = 0; max = -1; i++; }
            case '+' -> { min = 1; max = -1; i++; }
            case '?' -> { min = 0; max = 1; i++; }
            case '{' -> {
                int close = indexOf('}', i, stop);
                if (close < 0) return atom; // a literal brace, as ECMA-262 reads it outside Unicode mode
                String inside = new String(cps, i + 1, close - i - 1);
                if (!inside.matches("\\d+(,\\d*)?")) return atom;
                String[] parts = inside.split(",", -1);
                min = Integer.parseInt(parts[0]);
                max = parts.length == 1 ? min : parts[1].isEmpty() ? -1 : Integer.parseInt(parts[1]);
                if (min > MAX_COUNT) throw unsupported("a count above " + MAX_COUNT);
                if (max != -1 && max < min) throw unsupported("a count {" + inside + "} with max below min");
                if (max > MAX_COUNT) max = MAX_COUNT; // fewer repetitions are still matches
                i = close + 1;
            }
            default -> {
                return atom;
            }
        }
        if (i < stop && cps[i] == '?') i++; // lazy: the same set of strings
        if (i < stop && (cps[i] == '*' || cps[i] == '+' || cps[i] == '?' || cps[i] == '{')) {
            throw unsupported("a quantifier after a quantifier at offset " + i);
        }
        return Expr.repeat(atom, min, max);
    }

    private int indexOf(int c, int from, int stop) {
        for (int k = from; k < stop; k++) if (cps[k] == c) return k;
        return -1;
    }

    private Expr atom(int stop) {
        int c = cps[i];
        switch (c) {
            case '(' -> {
                i++;
                if (i < stop && cps[i] == '?') {
                    if (i + 1 < stop && cps[i + 1] == ':') {
                        i += 2;
                    } else if (i + 1 < stop && cps[i + 1] == '<' && i + 2 < stop && cps[i + 2] != '=' && cps[i + 2] != '!') {
                        int close = indexOf('>', i, stop);
                        if (close < 0) throw unsupported("an unterminated group name");
                        i = close + 1;
                    } else {
                        throw unsupported("lookaround or group flags at offset " + (i - 1));
                    }
                }
                Expr inner = alternation(stop);
                if (i >= stop || cps[i] != ')') throw unsupported("an unclosed group");
                i++;
                return inner;
            }
            case '[' -> {
                return chars(charClass(stop));
            }
            case '.' -> {
                i++;
                return chars(DOT);
            }
            case '\\' -> {
                i++;
                if (i >= stop) throw unsupported("a trailing backslash");
                return chars(escape(false));
            }
            case '^', '$' -> throw unsupported("an anchor '" + Character.toString(c) + "' inside the pattern");
            case '*', '+', '?' -> throw unsupported("a quantifier with nothing to repeat at offset " + i);
            case ')' -> throw unsupported("an unmatched ')'");
            default -> {
                i++;
                return chars(CodePointSet.single(c));
            }
        }
    }

    private Expr chars(CodePointSet set) {
        Expr e = set.asJsonStringChar();
        if (e == null) throw unsupported("a character class that matches no character");
        return e;
    }

    private CodePointSet charClass(int stop) {
        i++; // [
        boolean negate = i < stop && cps[i] == '^';
        if (negate) i++;
        CodePointSet set = CodePointSet.EMPTY;
        boolean first = true;
        while (true) {
            if (i >= stop) throw unsupported("an unterminated character class");
            int c = cps[i];
            if (c == ']' && !first) {
                i++;
                break;
            }
            if (c == ']') { // "[]" matches nothing in ECMA-262
                i++;
                break;
            }
            first = false;
            CodePointSet item;
            int single;
            if (c == '\\') {
                i++;
                if (i >= stop) throw unsupported("a trailing backslash");
                item = escape(true);
                single = item.ranges().length == 2 && item.ranges()[0] == item.ranges()[1] ? item.ranges()[0] : -1;
            } else {
                i++;
                item = CodePointSet.single(c);
                single = c;
            }
            if (single >= 0 && i + 1 < stop && cps[i] == '-' && cps[i + 1] != ']') {
                i++;
                int hi;
                if (cps[i] == '\\') {
                    i++;
                    CodePointSet h = escape(true);
                    if (h.ranges().length != 2 || h.ranges()[0] != h.ranges()[1]) throw unsupported("a range ending in a class escape");
                    hi = h.ranges()[0];
                } else {
                    hi = cps[i++];
                }
                if (hi < single) throw unsupported("a reversed range in a character class");
                item = CodePointSet.of(single, hi);
            }
            set = set.union(item);
        }
        return negate ? set.complement() : set;
    }

    /** The set after a backslash (the backslash consumed). */
    private CodePointSet escape(boolean inClass) {
        int c = cps[i++];
        return switch (c) {
            case 'd' -> DIGITS;
            case 'D' -> DIGITS.complement();
            case 'w' -> WORD;
            case 'W' -> WORD.complement();
            case 's' -> SPACE;
            case 'S' -> SPACE.complement();
            case 't' -> CodePointSet.single('\t');
            case 'n' -> CodePointSet.single('\n');
            case 'r' -> CodePointSet.single('\r');
            case 'f' -> CodePointSet.single('\f');
            case 'v' -> CodePointSet.single(0x0B);
            case '0' -> CodePointSet.single(0);
            case 'b' -> {
                if (inClass) yield CodePointSet.single('\b');
                throw unsupported("a word boundary \\b");
            }
            case 'x' -> CodePointSet.single(hex(2));
            case 'u' -> CodePointSet.single(hex(4));
            default -> {
                if (Character.isLetterOrDigit(c)) {
                    throw unsupported("the escape \\" + Character.toString(c));
                }
                yield CodePointSet.single(c);
            }
        };
    }

    private int hex(int digits) {
        if (i + digits > cps.length) throw unsupported("a short hex escape");
        String h = new String(cps, i, digits);
        if (!h.matches("[0-9a-fA-F]+")) throw unsupported("a bad hex escape");
        i += digits;
        return Integer.parseInt(h, 16);
    }

    private UnsupportedSchemaException unsupported(String what) {
        return new UnsupportedSchemaException("pattern", pointer, "the regular expression /" + pattern + "/ uses " + what
                + ", outside the supported subset");
    }
}
