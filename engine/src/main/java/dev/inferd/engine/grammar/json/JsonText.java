package dev.inferd.engine.grammar.json;

import dev.inferd.engine.chat.jinja.Json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Compact JSON text of a plain Java tree (Map, List, String, Number, Boolean, null): the exact bytes
 * a {@code const} or {@code enum} value is emitted as, and the canonical text compiled grammars are
 * cached by. Map order is kept (a schema's property order is part of what it asks for).
 */
public final class JsonText {
    private JsonText() {
    }

    public static String write(Object value) {
        var sb = new StringBuilder();
        write(value, sb, ",", ":");
        return sb.toString();
    }

    /** As {@link #write}, with a space after each {@code ,} and {@code :} (the grammars' compact layout). */
    public static String writeSpaced(Object value) {
        var sb = new StringBuilder();
        write(value, sb, ", ", ": ");
        return sb.toString();
    }

    private static void write(Object value, StringBuilder sb, String comma, String colon) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> Json.string(sb, s);
            case Boolean b -> sb.append(b);
            case Integer i -> sb.append(i);
            case Long l -> sb.append(l);
            case Short s -> sb.append(s);
            case Byte b -> sb.append(b);
            case BigInteger b -> sb.append(b);
            case BigDecimal d -> sb.append(d);
            case Number n -> {
                double d = n.doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("not a JSON number: " + d);
                sb.append(n);
            }
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (var e : m.entrySet()) {
                    if (!first) sb.append(comma);
                    first = false;
                    Json.string(sb, String.valueOf(e.getKey()));
                    sb.append(colon);
                    write(e.getValue(), sb, comma, colon);
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) sb.append(comma);
                    write(l.get(i), sb, comma, colon);
                }
                sb.append(']');
            }
            default -> throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
        }
    }

    /** A JSON string literal: quotes, backslashes and control characters escaped, the rest as is. */
    public static String string(String s) {
        return Json.quote(s);
    }
}
