package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Python string operations the filters and methods share. */
final class Strings {
    private Strings() {
    }

    /** {@code str.strip(chars)}: whitespace when chars is null. */
    static String strip(String s, String chars, boolean left, boolean right) {
        int start = 0;
        int end = s.length();
        while (left && start < end && stripped(s.charAt(start), chars)) {
            start++;
        }
        while (right && end > start && stripped(s.charAt(end - 1), chars)) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean stripped(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) || Character.isSpaceChar(c) : chars.indexOf(c) >= 0;
    }

    /** {@code str.split(sep, maxsplit)}: runs of whitespace, dropping empty parts, when sep is null. */
    static List<Object> split(String s, String sep, int maxSplit) {
        List<Object> parts = new ArrayList<>();
        if (sep == null) {
            int i = 0;
            int n = s.length();
            while (true) {
                while (i < n && Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
                if (i >= n) {
                    return parts;
                }
                if (maxSplit >= 0 && parts.size() == maxSplit) {
                    parts.add(strip(s.substring(i), null, false, true));
                    return parts;
                }
                int j = i;
                while (j < n && !Character.isWhitespace(s.charAt(j))) {
                    j++;
                }
                parts.add(s.substring(i, j));
                i = j;
            }
        }
        if (sep.isEmpty()) {
            throw new TemplateException("empty separator");
        }
        int from = 0;
        while (maxSplit < 0 || parts.size() < maxSplit) {
            int at = s.indexOf(sep, from);
            if (at < 0) {
                break;
            }
            parts.add(s.substring(from, at));
            from = at + sep.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    static List<Object> rsplit(String s, String sep, int maxSplit) {
        if (sep == null || maxSplit < 0) {
            return split(s, sep, maxSplit);
        }
        List<Object> parts = new ArrayList<>();
        int end = s.length();
        while (parts.size() < maxSplit) {
            int at = s.lastIndexOf(sep, end - sep.length());
            if (at < 0) {
                break;
            }
            parts.addFirst(s.substring(at + sep.length(), end));
            end = at;
        }
        parts.addFirst(s.substring(0, end));
        return parts;
    }

    static String replace(String s, String old, String replacement, int count) {
        if (count < 0) {
            return s.replace(old, replacement);
        }
        var sb = new StringBuilder();
        int from = 0;
        for (int n = 0; n < count; n++) {
            int at = s.indexOf(old, from);
            if (at < 0 || (old.isEmpty() && at >= s.length() && n > 0)) {
                break;
            }
            sb.append(s, from, at).append(replacement);
            from = at + old.length();
        }
        return sb.append(s.substring(from)).toString();
    }

    static int count(String s, String sub) {
        if (sub.isEmpty()) {
            return s.length() + 1;
        }
        int n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
            n++;
        }
        return n;
    }

    /** Python's {@code str.title()}: upper case after any non-letter, lower case inside a run of letters. */
    static String pythonTitle(String s) {
        var sb = new StringBuilder(s.length());
        boolean previousCased = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(previousCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousCased = Character.isLetter(c);
        }
        return sb.toString();
    }

    /** Jinja's {@code title} filter: words start after spaces, dashes and opening brackets. */
    static String jinjaTitle(String s) {
        var sb = new StringBuilder(s.length());
        boolean wordStart = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean separator = Character.isWhitespace(c) || "-({[<".indexOf(c) >= 0;
            sb.append(separator ? c : wordStart ? Character.toUpperCase(c) : Character.toLowerCase(c));
            wordStart = separator;
        }
        return sb.toString();
    }

    static String capitalize(String s) {
        return s.isEmpty() ? s : s.substring(0, 1).toUpperCase() + s.substring(1).toLowerCase();
    }

    /** {@code str.format}: {@code {}}, {@code {0}} and {@code {name}} fields, {@code {{}}/{@code }}} escapes; no format specs. */
    static String format(String s, List<Object> positional, Map<String, Object> named) {
        var sb = new StringBuilder();
        int auto = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' && i + 1 < s.length() && s.charAt(i + 1) == '{') {
                sb.append('{');
                i++;
            } else if (c == '}' && i + 1 < s.length() && s.charAt(i + 1) == '}') {
                sb.append('}');
                i++;
            } else if (c == '{') {
                int close = s.indexOf('}', i);
                if (close < 0) {
                    throw new TemplateException("single '{' encountered in format string");
                }
                String field = s.substring(i + 1, close);
                int colon = field.indexOf(':');
                if (colon >= 0) {
                    field = field.substring(0, colon);
                }
                Object value;
                if (field.isEmpty()) {
                    value = argument(positional, auto++);
                } else if (field.chars().allMatch(Character::isDigit)) {
                    value = argument(positional, Integer.parseInt(field));
                } else if (named.containsKey(field)) {
                    value = named.get(field);
                } else {
                    throw new TemplateException("format() has no argument '" + field + "'");
                }
                sb.append(Values.str(value));
                i = close;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static Object argument(List<Object> positional, int index) {
        if (index >= positional.size()) {
            throw new TemplateException("format() has no positional argument " + index);
        }
        return positional.get(index);
    }
}
