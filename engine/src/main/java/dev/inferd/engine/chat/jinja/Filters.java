package dev.inferd.engine.chat.jinja;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Jinja's built-in filters that chat templates use, with {@code tojson} as Hugging Face overrides it. */
final class Filters {
    private static final Set<String> NAMES = Set.of(
            "trim", "length", "count", "tojson", "string", "upper", "lower", "title", "capitalize", "replace",
            "default", "d", "first", "last", "join", "list", "items", "map", "selectattr", "rejectattr", "select",
            "reject", "unique", "int", "float", "abs", "round", "safe", "indent", "dictsort", "batch", "sort",
            "reverse", "sum", "min", "max", "attr", "escape", "e", "wordcount", "center");

    private Filters() {
    }

    static boolean exists(String name) {
        return NAMES.contains(name);
    }

    static Object apply(String name, Object v, Args a) {
        return switch (name) {
            case "trim" -> Strings.strip(Values.str(v), a.string(0, "chars", null), true, true);
            case "length", "count" -> Values.length(v);
            case "tojson" -> Json.write(v, a.has(0, "indent") && a.get(0, "indent", null) != null
                    ? a.integer(0, "indent", 0) : null, Values.truthy(a.named().getOrDefault("sort_keys", false)));
            case "string" -> Values.str(v);
            case "upper" -> Values.str(v).toUpperCase();
            case "lower" -> Values.str(v).toLowerCase();
            case "title" -> Strings.jinjaTitle(Values.str(v));
            case "capitalize" -> Strings.capitalize(Values.str(v));
            case "replace" -> Strings.replace(Values.str(v), a.string(0, "old", ""), a.string(1, "new", ""),
                    a.integer(2, "count", -1));
            case "default", "d" -> v instanceof Undefined || (a.flag(1, "boolean", false) && !Values.truthy(v))
                    ? a.get(0, "default_value", "") : v;
            case "first" -> {
                List<Object> items = Values.iterate(v);
                yield items.isEmpty() ? new Undefined("first item of an empty sequence") : items.getFirst();
            }
            case "last" -> {
                List<Object> items = Values.iterate(v);
                yield items.isEmpty() ? new Undefined("last item of an empty sequence") : items.getLast();
            }
            case "join" -> join(v, a);
            case "list" -> Values.iterate(v);
            case "items" -> items(v);
            // Jinja skips a falsy sequence here before iterating, so None maps and selects to nothing.
            case "map" -> Values.truthy(v) ? map(v, a) : new ArrayList<>();
            case "selectattr", "rejectattr" -> Values.truthy(v) ? selectAttribute(v, a, name.equals("selectattr")) : new ArrayList<>();
            case "select", "reject" -> Values.truthy(v) ? select(v, a, name.equals("select")) : new ArrayList<>();
            case "unique" -> unique(v, a);
            case "int" -> toInt(v, a);
            case "float" -> toFloat(v, a);
            case "abs" -> abs(v);
            case "round" -> round(v, a);
            case "safe", "escape", "e" -> name.equals("safe") ? v : escape(Values.str(v));
            case "indent" -> indent(Values.str(v), a);
            case "dictsort" -> dictsort(v, a);
            case "batch" -> batch(v, a);
            case "sort" -> sort(v, a);
            case "reverse" -> reverse(v);
            case "sum" -> sum(v, a);
            case "min", "max" -> minMax(v, a, name.equals("max"));
            case "attr" -> v instanceof java.util.Map<?, ?> && !Methods.isDictMethod(a.string(0, "name", ""))
                    ? new Undefined("'dict object' has no attribute '" + a.string(0, "name", "") + "'")
                    : Access.attribute(v, a.string(0, "name", ""));
            case "wordcount" -> (long) Strings.split(Values.str(v), null, -1).size();
            case "center" -> center(Values.str(v), a.integer(0, "width", 80));
            default -> throw new TemplateException("no filter named '" + name + "'");
        };
    }

    private static String join(Object v, Args a) {
        String separator = a.string(0, "d", "");
        Object attribute = a.get(1, "attribute", null);
        var sb = new StringBuilder();
        List<Object> items = Values.iterate(v);
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append(separator);
            }
            Object item = attribute == null ? items.get(i) : path(items.get(i), attribute);
            sb.append(Values.str(item));
        }
        return sb.toString();
    }

    private static List<Object> items(Object v) {
        return switch (v) {
            case Map<?, ?> m -> Methods.items(m);
            case Undefined u -> new ArrayList<>();
            case null, default -> throw new TemplateException("can only get item pairs from a mapping, not " + Values.typeName(v));
        };
    }

    /** {@code map(attribute='x', default=...)} or {@code map('filter', args...)}. */
    private static List<Object> map(Object v, Args a) {
        List<Object> out = new ArrayList<>();
        if (a.named().containsKey("attribute")) {
            Object attribute = a.named().get("attribute");
            for (Object item : Values.iterate(v)) {
                Object value = path(item, attribute);
                out.add(value instanceof Undefined && a.named().containsKey("default") ? a.named().get("default") : value);
            }
            return out;
        }
        String filter = a.string(0, "name", null);
        if (filter == null || !exists(filter)) {
            throw new TemplateException("map() needs attribute= or the name of a filter, got " + filter);
        }
        Args rest = Args.of(a.positional().subList(1, a.positional().size()), a.named());
        for (Object item : Values.iterate(v)) {
            out.add(apply(filter, item, rest));
        }
        return out;
    }

    private static List<Object> selectAttribute(Object v, Args a, boolean keep) {
        Object attribute = a.required(0, "attribute", keep ? "selectattr" : "rejectattr");
        List<Object> out = new ArrayList<>();
        for (Object item : Values.iterate(v)) {
            if (passes(path(item, attribute), a, 1) == keep) {
                out.add(item);
            }
        }
        return out;
    }

    private static List<Object> select(Object v, Args a, boolean keep) {
        List<Object> out = new ArrayList<>();
        for (Object item : Values.iterate(v)) {
            if (passes(item, a, 0) == keep) {
                out.add(item);
            }
        }
        return out;
    }

    /** The test named at {@code testIndex} (with the arguments after it) on value, or plain truth when none is named. */
    private static boolean passes(Object value, Args a, int testIndex) {
        if (a.positional().size() <= testIndex) {
            return Values.truthy(value);
        }
        String test = Values.str(a.positional().get(testIndex));
        if (!Tests.exists(test)) {
            throw new TemplateException("no test named '" + test + "'");
        }
        return Tests.apply(test, value, Args.of(a.positional().subList(testIndex + 1, a.positional().size()), Map.of()));
    }

    private static List<Object> unique(Object v, Args a) {
        boolean caseSensitive = a.flag(0, "case_sensitive", false);
        Object attribute = a.get(1, "attribute", null);
        List<Object> out = new ArrayList<>();
        List<Object> seen = new ArrayList<>();
        for (Object item : Values.iterate(v)) {
            Object key = attribute == null ? item : path(item, attribute);
            if (!caseSensitive && key instanceof String s) {
                key = s.toLowerCase();
            }
            Object k = key;
            if (seen.stream().noneMatch(s -> Values.equal(s, k))) {
                seen.add(key);
                out.add(item);
            }
        }
        return out;
    }

    private static Object toInt(Object v, Args a) {
        Object fallback = a.get(0, "default", 0L);
        if (v instanceof Boolean b) {
            return b ? 1L : 0L;
        }
        if (Values.isNumber(v)) {
            return Values.isFloat(v) ? (long) ((Number) v).doubleValue() : ((Number) v).longValue();
        }
        if (v instanceof String s) {
            String t = s.strip().replace("_", "");
            try {
                return Long.parseLong(t, a.integer(1, "base", 10));
            } catch (NumberFormatException e) {
                try {
                    return (long) Double.parseDouble(t);
                } catch (NumberFormatException ignored) {
                    return fallback;
                }
            }
        }
        return fallback;
    }

    private static Object toFloat(Object v, Args a) {
        Object fallback = a.get(0, "default", 0.0);
        if (Values.isNumeric(v)) {
            return Values.toDouble(v);
        }
        if (v instanceof String s) {
            try {
                return Double.parseDouble(s.strip());
            } catch (NumberFormatException e) {
                return fallback;
            }
        }
        return fallback;
    }

    private static Object abs(Object v) {
        if (!Values.isNumeric(v)) {
            throw new TemplateException("bad operand type for abs(): '" + Values.typeName(v) + "'");
        }
        if (Values.isFloat(v)) {
            return Math.abs(Values.toDouble(v));
        }
        return Math.abs(Values.toLong(v));
    }

    /** Jinja's round: always a float; 'common' rounds like Python's round() (half to even on the exact binary value). */
    private static Object round(Object v, Args a) {
        if (!Values.isNumeric(v)) {
            throw new TemplateException("round needs a number, got " + Values.typeName(v));
        }
        int precision = a.integer(0, "precision", 0);
        RoundingMode mode = switch (a.string(1, "method", "common")) {
            case "common" -> RoundingMode.HALF_EVEN;
            case "ceil" -> RoundingMode.CEILING;
            case "floor" -> RoundingMode.FLOOR;
            default -> throw new TemplateException("method must be 'common', 'ceil' or 'floor'");
        };
        return new BigDecimal(Values.toDouble(v)).setScale(precision, mode).doubleValue();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("\"", "&#34;").replace("'", "&#39;");
    }

    /** Jinja 3's indent: every line but the first (unless first=true), blank lines only with blank=true. */
    private static String indent(String s, Args a) {
        Object width = a.get(0, "width", 4L);
        String indentation = width instanceof String w ? w : " ".repeat(a.integer(0, "width", 4));
        boolean first = a.flag(1, "first", false);
        boolean blank = a.flag(2, "blank", false);
        List<String> lines = (s + "\n").lines().toList();
        var sb = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (i > 0) {
                sb.append('\n');
                if (blank || !line.isEmpty()) {
                    sb.append(indentation);
                }
            }
            sb.append(line);
        }
        return first ? indentation + sb : sb.toString();
    }

    private static List<Object> dictsort(Object v, Args a) {
        if (!(v instanceof Map<?, ?> m)) {
            throw new TemplateException("dictsort needs a mapping, got " + Values.typeName(v));
        }
        boolean caseSensitive = a.flag(0, "case_sensitive", false);
        int position = switch (a.string(1, "by", "key")) {
            case "key" -> 0;
            case "value" -> 1;
            default -> throw new TemplateException("dictsort: by must be 'key' or 'value'");
        };
        boolean reverse = a.flag(2, "reverse", false);
        List<Object> pairs = new ArrayList<>(Methods.items(m));
        Comparator<Object> order = Comparator.comparing(p -> sortKey(((List<?>) p).get(position), caseSensitive), Values::compare);
        pairs.sort(reverse ? order.reversed() : order);
        return pairs;
    }

    private static List<Object> batch(Object v, Args a) {
        int size = a.integer(0, "linecount", 1);
        if (size <= 0) {
            throw new TemplateException("batch size must be positive");
        }
        boolean fill = a.has(1, "fill_with");
        Object filler = a.get(1, "fill_with", null);
        List<Object> out = new ArrayList<>();
        List<Object> current = new ArrayList<>();
        for (Object item : Values.iterate(v)) {
            current.add(item);
            if (current.size() == size) {
                out.add(current);
                current = new ArrayList<>();
            }
        }
        if (!current.isEmpty()) {
            while (fill && current.size() < size) {
                current.add(filler);
            }
            out.add(current);
        }
        return out;
    }

    private static List<Object> sort(Object v, Args a) {
        boolean reverse = a.flag(0, "reverse", false);
        boolean caseSensitive = a.flag(1, "case_sensitive", false);
        Object attribute = a.get(2, "attribute", null);
        List<Object> items = new ArrayList<>(Values.iterate(v));
        Comparator<Object> order = Comparator.comparing(
                item -> sortKey(attribute == null ? item : path(item, attribute), caseSensitive), Values::compare);
        items.sort(reverse ? order.reversed() : order);
        return items;
    }

    private static Object sortKey(Object v, boolean caseSensitive) {
        return !caseSensitive && v instanceof String s ? s.toLowerCase() : v;
    }

    private static Object reverse(Object v) {
        if (v instanceof String s) {
            return new StringBuilder(s).reverse().toString();
        }
        List<Object> items = new ArrayList<>(Values.iterate(v));
        java.util.Collections.reverse(items);
        return items;
    }

    private static Object sum(Object v, Args a) {
        Object attribute = a.get(0, "attribute", null);
        Object total = a.get(1, "start", 0L);
        for (Object item : Values.iterate(v)) {
            total = Operators.binary("+", total, attribute == null ? item : path(item, attribute));
        }
        return total;
    }

    private static Object minMax(Object v, Args a, boolean max) {
        boolean caseSensitive = a.flag(0, "case_sensitive", false);
        Object attribute = a.get(1, "attribute", null);
        Object best = null;
        Object bestKey = null;
        for (Object item : Values.iterate(v)) {
            Object key = sortKey(attribute == null ? item : path(item, attribute), caseSensitive);
            if (bestKey == null || (max ? Values.compare(key, bestKey) > 0 : Values.compare(key, bestKey) < 0)) {
                best = item;
                bestKey = key;
            }
        }
        return bestKey == null ? new Undefined("no " + (max ? "max" : "min") + " item, empty sequence") : best;
    }

    private static String center(String s, int width) {
        int pad = width - s.length();
        if (pad <= 0) {
            return s;
        }
        int left = pad / 2 + (pad & width & 1);
        return " ".repeat(left) + s + " ".repeat(pad - left);
    }

    /** Jinja's attribute getter: a dotted path, integer parts index lists. */
    static Object path(Object item, Object attribute) {
        if (Values.isInteger(attribute)) {
            return Access.item(item, attribute);
        }
        Object current = item;
        for (String part : Values.str(attribute).split("\\.")) {
            Object key = part.chars().allMatch(Character::isDigit) && !part.isEmpty() ? (Object) Long.parseLong(part) : part;
            current = Access.item(current, key);
        }
        return current;
    }
}
