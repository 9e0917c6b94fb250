package dev.inferd.engine.chat.jinja;

import dev.inferd.engine.chat.jinja.Token.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits template source into tokens, applying whitespace control the way Hugging Face's Jinja
 * environment does: {@code trim_blocks=True} (the first newline after a block or comment tag is
 * dropped), {@code lstrip_blocks=True} (spaces and tabs before a block or comment tag at the start of
 * a line are dropped), {@code -} markers strip all whitespace on their side, {@code +} markers turn
 * the implicit trimming off, and one trailing newline of the source is dropped.
 */
final class Lexer {
    private static final String[] OPERATORS = {
            "//", "**", "==", "!=", "<=", ">=",
            "+", "-", "*", "/", "%", "~", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|"};
    private static final Pattern RAW_START = Pattern.compile("\\{%[-+]?\\s*raw\\s*([-+]?)%}");
    private static final Pattern RAW_END = Pattern.compile("\\{%([-+]?)\\s*endraw\\s*([-+]?)%}");

    private final String src;
    private final List<Token> tokens = new ArrayList<>();
    private int pos;
    private int line = 1;

    Lexer(String source) {
        String s = source.replace("\r\n", "\n").replace('\r', '\n');
        this.src = s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    List<Token> tokenize() {
        while (pos < src.length()) {
            int tag = nextTagStart(pos);
            int textEnd = tag < 0 ? src.length() : tag;
            String text = src.substring(pos, textEnd);
            if (tag >= 0) {
                text = stripBeforeTag(text, pos, tag);
            }
            emitText(text, textEnd);
            if (tag < 0) {
                break;
            }
            pos = tag;
            char type = src.charAt(tag + 1);
            if (type == '#') {
                skipComment();
            } else if (type == '%' && RAW_START.matcher(src).region(tag, src.length()).lookingAt()) {
                readRaw();
            } else {
                readTag(type == '{');
            }
        }
        tokens.add(new Token(Kind.EOF, "", null, line));
        return tokens;
    }

    private int nextTagStart(int from) {
        int i = src.indexOf('{', from);
        while (i >= 0 && i + 1 < src.length()) {
            char c = src.charAt(i + 1);
            if (c == '{' || c == '%' || c == '#') {
                return i;
            }
            i = src.indexOf('{', i + 1);
        }
        return -1;
    }

    /** Applies a {@code -} marker or lstrip_blocks to the text before the tag at {@code tag}. */
    private String stripBeforeTag(String text, int textStart, int tag) {
        char marker = tag + 2 < src.length() ? src.charAt(tag + 2) : ' ';
        if (marker == '-') {
            return text.stripTrailing();
        }
        boolean blockOrComment = src.charAt(tag + 1) != '{';
        if (marker == '+' || !blockOrComment) {
            return text;
        }
        int lineStart = src.lastIndexOf('\n', tag - 1) + 1;
        if (lineStart < textStart) {
            return text;
        }
        for (int i = lineStart; i < tag; i++) {
            if (!Character.isWhitespace(src.charAt(i))) {
                return text;
            }
        }
        return text.substring(0, lineStart - textStart);
    }

    private void emitText(String text, int rawEnd) {
        if (!text.isEmpty()) {
            tokens.add(new Token(Kind.TEXT, text, text, line));
        }
        line += count(src, pos, rawEnd);
        pos = rawEnd;
    }

    private void skipComment() {
        int startLine = line;
        int end = src.indexOf("#}", pos + 2);
        if (end < 0) {
            throw new TemplateException("unclosed comment, expected '#}'", startLine);
        }
        boolean strip = src.charAt(end - 1) == '-' && end - 1 >= pos + 2;
        advanceTo(end + 2);
        afterTag(strip, true, false);
    }

    private void readRaw() {
        int startLine = line;
        Matcher start = RAW_START.matcher(src).region(pos, src.length());
        start.lookingAt();
        Matcher end = RAW_END.matcher(src);
        if (!end.find(start.end())) {
            throw new TemplateException("missing end of raw block, expected '{% endraw %}'", startLine);
        }
        String body = src.substring(start.end(), end.start());
        if (start.group(1).equals("-")) {
            body = body.stripLeading();
        } else if (!start.group(1).equals("+") && body.startsWith("\n")) {
            body = body.substring(1);
        }
        if (end.group(1).equals("-")) {
            body = body.stripTrailing();
        }
        advanceTo(start.end());
        if (!body.isEmpty()) {
            tokens.add(new Token(Kind.TEXT, body, body, line));
        }
        advanceTo(end.end());
        afterTag(end.group(2).equals("-"), true, end.group(2).equals("+"));
    }

    private void readTag(boolean variable) {
        int startLine = line;
        tokens.add(new Token(variable ? Kind.VARIABLE_BEGIN : Kind.BLOCK_BEGIN, src.substring(pos, pos + 2), null, line));
        pos += 2;
        if (pos < src.length() && (src.charAt(pos) == '-' || src.charAt(pos) == '+')) {
            pos++;
        }
        String close = variable ? "}}" : "%}";
        int depth = 0;
        while (true) {
            skipSpaces();
            if (pos >= src.length()) {
                throw new TemplateException("unclosed tag, expected '" + close + "'", startLine);
            }
            if (depth == 0) {
                for (String marker : new String[]{"-", "+", ""}) {
                    if (src.startsWith(marker + close, pos)) {
                        tokens.add(new Token(variable ? Kind.VARIABLE_END : Kind.BLOCK_END, close, null, line));
                        advanceTo(pos + marker.length() + 2);
                        afterTag(marker.equals("-"), !variable, marker.equals("+"));
                        return;
                    }
                }
            }
            Token t = readExpressionToken();
            if (t.kind() == Kind.OPERATOR) {
                switch (t.text()) {
                    case "(", "[", "{" -> depth++;
                    case ")", "]", "}" -> depth = Math.max(0, depth - 1);
                    default -> { }
                }
            }
            tokens.add(t);
        }
    }

    /** Whitespace after a tag: a {@code -} strips all of it, trim_blocks drops one newline after blocks. */
    private void afterTag(boolean strip, boolean block, boolean keep) {
        if (strip) {
            int i = pos;
            while (i < src.length() && Character.isWhitespace(src.charAt(i))) {
                i++;
            }
            advanceTo(i);
        } else if (block && !keep && pos < src.length() && src.charAt(pos) == '\n') {
            advanceTo(pos + 1);
        }
    }

    private Token readExpressionToken() {
        char c = src.charAt(pos);
        int start = pos;
        if (Character.isLetter(c) || c == '_') {
            while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                pos++;
            }
            String name = src.substring(start, pos);
            return new Token(Kind.NAME, name, name, line);
        }
        if (Character.isDigit(c)) {
            return readNumber();
        }
        if (c == '\'' || c == '"') {
            return readString(c);
        }
        for (String op : OPERATORS) {
            if (src.startsWith(op, pos)) {
                pos += op.length();
                return new Token(Kind.OPERATOR, op, null, line);
            }
        }
        throw new TemplateException("unexpected character '" + c + "'", line);
    }

    private Token readNumber() {
        int start = pos;
        boolean isFloat = false;
        digits();
        if (pos + 1 < src.length() && src.charAt(pos) == '.' && Character.isDigit(src.charAt(pos + 1))) {
            isFloat = true;
            pos++;
            digits();
        }
        if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            int save = pos;
            pos++;
            if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
                pos++;
            }
            if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                isFloat = true;
                digits();
            } else {
                pos = save;
            }
        }
        String text = src.substring(start, pos);
        String clean = text.replace("_", "");
        return isFloat
                ? new Token(Kind.FLOAT, text, Double.parseDouble(clean), line)
                : new Token(Kind.INTEGER, text, Long.parseLong(clean), line);
    }

    private void digits() {
        while (pos < src.length() && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
            pos++;
        }
    }

    /** A quoted string with Python's escapes; an unknown escape keeps its backslash, as Python does. */
    private Token readString(char quote) {
        int startLine = line;
        int start = pos;
        pos++;
        var sb = new StringBuilder();
        while (true) {
            if (pos >= src.length()) {
                throw new TemplateException("unterminated string", startLine);
            }
            char c = src.charAt(pos++);
            if (c == quote) {
                break;
            }
            if (c == '\n') {
                line++;
            }
            if (c != '\\' || pos >= src.length()) {
                sb.append(c);
                continue;
            }
            char e = src.charAt(pos++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'v' -> sb.append('\u000B');
                case 'a' -> sb.append('\u0007');
                case '0' -> sb.append('\0');
                case '\\', '\'', '"' -> sb.append(e);
                case '\n' -> line++;
                case 'x' -> sb.appendCodePoint(hex(2, startLine));
                case 'u' -> sb.appendCodePoint(hex(4, startLine));
                case 'U' -> sb.appendCodePoint(hex(8, startLine));
                default -> sb.append('\\').append(e);
            }
        }
        return new Token(Kind.STRING, src.substring(start, pos), sb.toString(), startLine);
    }

    private int hex(int n, int startLine) {
        if (pos + n > src.length()) {
            throw new TemplateException("truncated escape in string", startLine);
        }
        try {
            int v = Integer.parseInt(src.substring(pos, pos + n), 16);
            pos += n;
            return v;
        } catch (NumberFormatException e) {
            throw new TemplateException("bad escape in string: " + src.substring(pos, pos + n), startLine);
        }
    }

    private void skipSpaces() {
        while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
            if (src.charAt(pos) == '\n') {
                line++;
            }
            pos++;
        }
    }

    private void advanceTo(int newPos) {
        line += count(src, pos, newPos);
        pos = newPos;
    }

    private static int count(String s, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }
}
