package dev.inferd.engine.chat.jinja;

import java.util.List;
import java.util.Map;

/**
 * The {@code tojson} filter as Hugging Face defines it for chat templates: Python's
 * {@code json.dumps(value, ensure_ascii=False, indent=indent)}, keys in insertion order, no HTML
 * escaping, separators {@code ", "}/{@code ": "} (and {@code ","} at line ends when indenting).
 */
public final class Json {
    private Json() {
    }

    /** {@code json.dumps(value, ensure_ascii=False)}: the compact one-line form templates' {@code tojson} gives. */
    public static String write(Object value) {
        return write(value, null, false);
    }

    static String write(Object value, Integer indent, boolean sortKeys) {
        var sb = new StringBuilder();
        write(sb, value, indent, 0, sortKeys);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v, Integer indent, int depth, boolean sortKeys) {
        switch (v) {
            case null -> sb.append("null");
            case Boolean b -> sb.append(b ? "true" : "false");
            case String s -> string(sb, s);
            case Map<?, ?> map -> {
                if (map.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                var entries = map.entrySet().stream().toList();
                if (sortKeys) {
                    entries = entries.stream().sorted((a, b) -> Values.compare(key(a.getKey()), key(b.getKey()))).toList();
                }
                sb.append('{');
                boolean first = true;
                for (var e : entries) {
                    separator(sb, first, indent, depth + 1);
                    first = false;
                    string(sb, key(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent, depth + 1, sortKeys);
                }
                close(sb, indent, depth);
                sb.append('}');
            }
            case List<?> list -> {
                if (list.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append('[');
                boolean first = true;
                for (Object item : list) {
                    separator(sb, first, indent, depth + 1);
                    first = false;
                    write(sb, item, indent, depth + 1, sortKeys);
                }
                close(sb, indent, depth);
                sb.append(']');
            }
            case Double d when d.isNaN() -> sb.append("NaN");
            case Double d when d.isInfinite() -> sb.append(d > 0 ? "Infinity" : "-Infinity");
            case Namespace n -> throw new TemplateException("Object of type Namespace is not JSON serializable");
            case Undefined u -> throw new TemplateException(u.message() + " (cannot be converted to JSON)");
            default -> {
                if (!Values.isNumber(v)) {
                    throw new TemplateException("Object of type " + Values.typeName(v) + " is not JSON serializable");
                }
                sb.append(Values.repr(v));
            }
        }
    }

    /** JSON object keys are strings; Python converts numbers, booleans and None the JSON way. */
    private static String key(Object k) {
        return switch (k) {
            case String s -> s;
            case null -> "null";
            case Boolean b -> b ? "true" : "false";
            default -> Values.repr(k);
        };
    }

    private static void separator(StringBuilder sb, boolean first, Integer indent, int depth) {
        if (!first) {
            sb.append(indent == null ? ", " : ",");
        }
        if (indent != null) {
            sb.append('\n').append(" ".repeat(indent * depth));
        }
    }

    private static void close(StringBuilder sb, Integer indent, int depth) {
        if (indent != null) {
            sb.append('\n').append(" ".repeat(indent * depth));
        }
    }

    /** A JSON string literal, escaped as {@link #string(StringBuilder, String)} does. */
    public static String quote(CharSequence s) {
        var sb = new StringBuilder(s.length() + 2);
        string(sb, s.toString());
        return sb.toString();
    }

    /** Escapes as Python's json does with ensure_ascii=False: quotes, backslash, control characters only. */
    public static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
