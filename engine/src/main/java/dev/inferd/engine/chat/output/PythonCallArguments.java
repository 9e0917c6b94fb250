package dev.inferd.engine.chat.output;

import dev.inferd.engine.chat.jinja.Json;

/**
 * The keyword arguments of a Llama built-in tool call, {@code brave_search.call(query="x", n=3)},
 * as a JSON object: {@code {"query": "x", "n": 3}}. Strings (single or double quoted) become JSON
 * strings; numbers stay numbers; {@code True}/{@code False}/{@code None} become JSON literals;
 * anything else becomes a string of its text.
 */
final class PythonCallArguments {
    private PythonCallArguments() {
    }

    /** @param inside the text between the parentheses */
    static String toJson(String inside) {
        var out = new StringBuilder("{");
        int i = 0;
        int n = inside.length();
        boolean first = true;
        while (i < n) {
            while (i < n && (Character.isWhitespace(inside.charAt(i)) || inside.charAt(i) == ',')) {
                i++;
            }
            int eq = inside.indexOf('=', i);
            if (i >= n || eq < 0) {
                break;
            }
            String name = inside.substring(i, eq).strip();
            i = eq + 1;
            while (i < n && Character.isWhitespace(inside.charAt(i))) {
                i++;
            }
            String value;
            if (i < n && (inside.charAt(i) == '"' || inside.charAt(i) == '\'')) {
                char quote = inside.charAt(i++);
                var sb = new StringBuilder();
                while (i < n && inside.charAt(i) != quote) {
                    char c = inside.charAt(i++);
                    if (c == '\\' && i < n) {
                        c = inside.charAt(i++);
                        c = switch (c) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            default -> c;
                        };
                    }
                    sb.append(c);
                }
                i++;
                value = Json.quote(sb);
            } else {
                int end = inside.indexOf(',', i);
                String literal = inside.substring(i, end < 0 ? n : end).strip();
                i = end < 0 ? n : end;
                value = switch (literal) {
                    case "True" -> "true";
                    case "False" -> "false";
                    case "None" -> "null";
                    default -> literal.matches("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?") ? literal : Json.quote(literal);
                };
            }
            out.append(first ? "" : ", ").append(Json.quote(name)).append(": ").append(value);
            first = false;
        }
        return out.append('}').toString();
    }
}
