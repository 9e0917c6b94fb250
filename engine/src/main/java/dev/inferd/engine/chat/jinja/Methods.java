package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Python methods templates call on strings ({@code content.split('</think>')}) and dicts
 * ({@code tool.items()}, {@code param.get('type', 'any')}). Only methods that do not mutate, as in
 * Hugging Face's immutable sandbox.
 */
final class Methods {
    private static final Set<String> DICT = Set.of("items", "keys", "values", "get");
    private static final Set<String> STRING = Set.of(
            "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith", "endswith", "upper", "lower",
            "title", "capitalize", "replace", "format", "join", "find", "rfind", "count", "isdigit", "isalpha",
            "isalnum", "isspace", "islower", "isupper", "removeprefix", "removesuffix");

    private Methods() {
    }

    static boolean isDictMethod(String name) {
        return DICT.contains(name);
    }

    static boolean isStringMethod(String name) {
        return STRING.contains(name);
    }

    static JinjaFunction bind(Map<?, ?> map, String name) {
        return (positional, named) -> {
            Args a = Args.of(positional, named);
            return switch (name) {
                case "items" -> items(map);
                case "keys" -> new ArrayList<Object>(map.keySet());
                case "values" -> new ArrayList<Object>(map.values());
                case "get" -> {
                    Object key = a.required(0, "key", "get");
                    yield Values.containsKey(map, key) ? Values.mapGet(map, key) : a.get(1, "default", null);
                }
                default -> throw new IllegalStateException(name);
            };
        };
    }

    static JinjaFunction bind(String s, String name) {
        return (positional, named) -> {
            Args a = Args.of(positional, named);
            return switch (name) {
                case "strip" -> Strings.strip(s, chars(a), true, true);
                case "lstrip" -> Strings.strip(s, chars(a), true, false);
                case "rstrip" -> Strings.strip(s, chars(a), false, true);
                case "split" -> Strings.split(s, separator(a), a.integer(1, "maxsplit", -1));
                case "rsplit" -> Strings.rsplit(s, separator(a), a.integer(1, "maxsplit", -1));
                case "splitlines" -> new ArrayList<Object>(s.lines().toList());
                case "startswith" -> affix(s, a.required(0, "prefix", name), true);
                case "endswith" -> affix(s, a.required(0, "suffix", name), false);
                case "upper" -> s.toUpperCase();
                case "lower" -> s.toLowerCase();
                case "title" -> Strings.pythonTitle(s);
                case "capitalize" -> Strings.capitalize(s);
                case "replace" -> Strings.replace(s, Values.str(a.required(0, "old", name)),
                        Values.str(a.required(1, "new", name)), a.integer(2, "count", -1));
                case "format" -> Strings.format(s, positional, named);
                case "join" -> joinWith(s, Values.iterate(a.required(0, "iterable", name)));
                case "find" -> (long) s.indexOf(Values.str(a.required(0, "sub", name)));
                case "rfind" -> (long) s.lastIndexOf(Values.str(a.required(0, "sub", name)));
                case "count" -> (long) Strings.count(s, Values.str(a.required(0, "sub", name)));
                case "isdigit" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
                case "isalpha" -> !s.isEmpty() && s.chars().allMatch(Character::isLetter);
                case "isalnum" -> !s.isEmpty() && s.chars().allMatch(Character::isLetterOrDigit);
                case "isspace" -> !s.isEmpty() && s.chars().allMatch(Character::isWhitespace);
                case "islower" -> s.chars().anyMatch(Character::isLowerCase) && s.equals(s.toLowerCase());
                case "isupper" -> s.chars().anyMatch(Character::isUpperCase) && s.equals(s.toUpperCase());
                case "removeprefix" -> {
                    String p = Values.str(a.required(0, "prefix", name));
                    yield s.startsWith(p) ? s.substring(p.length()) : s;
                }
                case "removesuffix" -> {
                    String p = Values.str(a.required(0, "suffix", name));
                    yield s.endsWith(p) && !p.isEmpty() ? s.substring(0, s.length() - p.length()) : s;
                }
                default -> throw new IllegalStateException(name);
            };
        };
    }

    private static String joinWith(String separator, List<Object> items) {
        var sb = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append(separator);
            }
            sb.append(Values.str(items.get(i)));
        }
        return sb.toString();
    }

    private static String chars(Args a) {
        Object v = a.get(0, "chars", null);
        return v == null ? null : Values.str(v);
    }

    private static String separator(Args a) {
        Object v = a.get(0, "sep", null);
        return v == null ? null : Values.str(v);
    }

    private static boolean affix(String s, Object affix, boolean prefix) {
        List<Object> options = affix instanceof List<?> l ? new ArrayList<>(l) : List.of(affix);
        for (Object o : options) {
            String text = Values.str(o);
            if (prefix ? s.startsWith(text) : s.endsWith(text)) {
                return true;
            }
        }
        return false;
    }

    /** Pairs of a dict, as {@code dict.items()} and the {@code items} filter give them. */
    static List<Object> items(Map<?, ?> map) {
        List<Object> pairs = new ArrayList<>(map.size());
        for (var e : map.entrySet()) {
            pairs.add(Tuple.pair(e.getKey(), e.getValue()));
        }
        return pairs;
    }
}
