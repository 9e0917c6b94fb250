package dev.inferd.engine.chat.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Python semantics over the Java values a template sees: {@code null} is None, {@link Boolean},
 * integral {@link Number}s are int, other numbers are float, {@link String}, {@link List} (also
 * tuples), {@link Map} (dict, insertion-ordered), {@link Undefined}, {@link Namespace}, {@link LoopInfo}
 * and {@link JinjaFunction}.
 */
final class Values {
    private Values() {
    }

    static boolean isInteger(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte || v instanceof BigInteger;
    }

    static boolean isFloat(Object v) {
        return v instanceof Double || v instanceof Float || v instanceof BigDecimal;
    }

    static boolean isNumber(Object v) {
        return isInteger(v) || isFloat(v);
    }

    static String typeName(Object v) {
        return switch (v) {
            case null -> "NoneType";
            case Boolean b -> "bool";
            case String s -> "str";
            case List<?> l -> "list";
            case Map<?, ?> m -> "dict";
            case Undefined u -> "Undefined";
            case Namespace n -> "Namespace";
            case LoopInfo l -> "LoopContext";
            case JinjaFunction f -> "function";
            default -> isInteger(v) ? "int" : isFloat(v) ? "float" : v.getClass().getSimpleName();
        };
    }

    static boolean truthy(Object v) {
        return switch (v) {
            case null -> false;
            case Boolean b -> b;
            case String s -> !s.isEmpty();
            case Collection<?> c -> !c.isEmpty();
            case Map<?, ?> m -> !m.isEmpty();
            case Undefined u -> false;
            case Number n -> isFloat(n) ? n.doubleValue() != 0.0 : n.longValue() != 0;
            default -> true;
        };
    }

    // ---- str() and repr() ----

    /** Python's {@code str(v)}, which is what {@code {{ v }}} prints; undefined prints nothing. */
    static String str(Object v) {
        return switch (v) {
            case String s -> s;
            case Undefined u -> "";
            case null, default -> repr(v);
        };
    }

    static String repr(Object v) {
        return switch (v) {
            case null -> "None";
            case Boolean b -> b ? "True" : "False";
            case String s -> reprString(s);
            case List<?> list -> {
                boolean tuple = list instanceof Tuple;
                var sb = new StringBuilder(tuple ? "(" : "[");
                for (int i = 0; i < list.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append(repr(list.get(i)));
                }
                if (tuple && list.size() == 1) {
                    sb.append(',');
                }
                yield sb.append(tuple ? ')' : ']').toString();
            }
            case Map<?, ?> map -> {
                var sb = new StringBuilder("{");
                boolean first = true;
                for (var e : map.entrySet()) {
                    sb.append(first ? "" : ", ").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
                    first = false;
                }
                yield sb.append('}').toString();
            }
            case Undefined u -> "Undefined";
            case Double d -> floatRepr(d);
            case Float f -> floatRepr(f.doubleValue());
            case BigDecimal d -> floatRepr(d.doubleValue());
            default -> v.toString();
        };
    }

    private static String reprString(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        var sb = new StringBuilder().append(quote);
        s.codePoints().forEach(c -> {
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c == quote) {
                        sb.append('\\').append((char) c);
                    } else if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", c));
                    } else {
                        sb.appendCodePoint(c);
                    }
                }
            }
        });
        return sb.append(quote).toString();
    }

    /** Python's float repr: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(Double.toString(d));
        int exponent = exact.precision() - exact.scale() - 1;
        if (exponent < -4 || exponent >= 16) {
            BigDecimal unscaled = exact.stripTrailingZeros();
            String digits = unscaled.unscaledValue().abs().toString();
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return (d < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
        }
        String plain = exact.stripTrailingZeros().toPlainString();
        return plain.contains(".") ? plain : plain + ".0";
    }

    // ---- equality and ordering ----

    static boolean equal(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a instanceof Undefined && b instanceof Undefined) {
            return true;
        }
        if (isNumeric(a) && isNumeric(b)) {
            if ((isFloat(a) || isFloat(b))) {
                return toDouble(a) == toDouble(b);
            }
            return toLong(a) == toLong(b);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!equal(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (var e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !equal(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return a != null && a.equals(b);
    }

    /** Python's ordering ({@code <} is {@code compare < 0}) between numbers, strings or lists. */
    static int compare(Object a, Object b) {
        if (isNumeric(a) && isNumeric(b)) {
            return isFloat(a) || isFloat(b) ? Double.compare(toDouble(a), toDouble(b)) : Long.compare(toLong(a), toLong(b));
        }
        if (a instanceof String x && b instanceof String y) {
            return x.compareTo(y);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
                if (!equal(x.get(i), y.get(i))) {
                    return compare(x.get(i), y.get(i));
                }
            }
            return Integer.compare(x.size(), y.size());
        }
        if (a instanceof Undefined u) {
            throw new TemplateException(u.message());
        }
        if (b instanceof Undefined u) {
            throw new TemplateException(u.message());
        }
        throw new TemplateException("cannot compare " + typeName(a) + " with " + typeName(b));
    }

    /** Numbers and booleans, which Python treats as the integers 1 and 0. */
    static boolean isNumeric(Object v) {
        return isNumber(v) || v instanceof Boolean;
    }

    static long toLong(Object v) {
        return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).longValue();
    }

    static double toDouble(Object v) {
        return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).doubleValue();
    }

    // ---- containers ----

    /** The items a for loop visits: list items, dict keys, string characters; undefined is empty. */
    static List<Object> iterate(Object v) {
        return switch (v) {
            case List<?> list -> new ArrayList<>(list);
            case Map<?, ?> map -> new ArrayList<>(map.keySet());
            case String s -> {
                List<Object> chars = new ArrayList<>();
                s.codePoints().forEach(c -> chars.add(Character.toString(c)));
                yield chars;
            }
            case Undefined u -> new ArrayList<>();
            case null -> throw new TemplateException("'NoneType' object is not iterable");
            case Iterable<?> it -> {
                List<Object> items = new ArrayList<>();
                for (Iterator<?> i = it.iterator(); i.hasNext(); ) {
                    items.add(i.next());
                }
                yield items;
            }
            default -> throw new TemplateException("'" + typeName(v) + "' object is not iterable");
        };
    }

    static boolean isIterable(Object v) {
        return v instanceof Iterable<?> || v instanceof Map<?, ?> || v instanceof String || v instanceof Undefined;
    }

    static long length(Object v) {
        return switch (v) {
            case String s -> s.codePointCount(0, s.length());
            case Collection<?> c -> c.size();
            case Map<?, ?> m -> m.size();
            case Undefined u -> 0;
            case Namespace n -> n.attributes.size();
            case null, default -> throw new TemplateException("object of type '" + typeName(v) + "' has no len()");
        };
    }

    static boolean contains(Object container, Object item) {
        return switch (container) {
            case String s -> {
                if (!(item instanceof String sub)) {
                    throw new TemplateException("'in <string>' requires string as left operand, not " + typeName(item));
                }
                yield s.contains(sub);
            }
            case Map<?, ?> m -> containsKey(m, item);
            case Undefined u -> false;
            case null, default -> {
                for (Object o : iterate(container)) {
                    if (equal(o, item)) {
                        yield true;
                    }
                }
                yield false;
            }
        };
    }

    static boolean containsKey(Map<?, ?> m, Object key) {
        return m.containsKey(key) || (isInteger(key) && m.keySet().stream().anyMatch(k -> isInteger(k) && equal(k, key)));
    }

    static Object mapGet(Map<?, ?> m, Object key) {
        if (m.containsKey(key)) {
            return m.get(key);
        }
        if (isInteger(key)) {
            for (var e : m.entrySet()) {
                if (isInteger(e.getKey()) && equal(e.getKey(), key)) {
                    return e.getValue();
                }
            }
        }
        return null;
    }

    /** A string's characters as Python sees them (code points), for indexing and slicing. */
    static int[] codePoints(String s) {
        return s.codePoints().toArray();
    }
}
