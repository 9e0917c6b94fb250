package dev.inferd.engine.chat.jinja;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** Jinja's tests, {@code x is name(args)}, with Python's notion of each type. */
final class Tests {
    private static final Set<String> NAMES = Set.of(
            "defined", "undefined", "none", "string", "number", "integer", "float", "boolean", "mapping",
            "iterable", "sequence", "callable", "true", "false", "equalto", "eq", "==", "ne", "!=", "lt", "<",
            "le", "<=", "gt", ">", "ge", ">=", "in", "odd", "even", "divisibleby", "sameas", "lower", "upper");

    private Tests() {
    }

    static boolean exists(String name) {
        return NAMES.contains(name);
    }

    static boolean apply(String name, Object v, Args args) {
        return switch (name) {
            case "defined" -> !(v instanceof Undefined);
            case "undefined" -> v instanceof Undefined;
            case "none" -> v == null;
            case "string" -> v instanceof String;
            case "number" -> Values.isNumeric(v);
            case "integer" -> Values.isInteger(v);
            case "float" -> Values.isFloat(v);
            case "boolean" -> v instanceof Boolean;
            case "mapping" -> v instanceof Map<?, ?>;
            case "iterable" -> Values.isIterable(v);
            case "sequence" -> v instanceof List<?> || v instanceof Map<?, ?> || v instanceof String;
            case "callable" -> v instanceof JinjaFunction;
            case "true" -> Boolean.TRUE.equals(v);
            case "false" -> Boolean.FALSE.equals(v);
            case "equalto", "eq", "==" -> Values.equal(v, other(args, name));
            case "ne", "!=" -> !Values.equal(v, other(args, name));
            case "lt", "<" -> Values.compare(v, other(args, name)) < 0;
            case "le", "<=" -> Values.compare(v, other(args, name)) <= 0;
            case "gt", ">" -> Values.compare(v, other(args, name)) > 0;
            case "ge", ">=" -> Values.compare(v, other(args, name)) >= 0;
            case "in" -> Values.contains(args.required(0, "seq", "in"), v);
            case "odd" -> Values.toLong(number(v, name)) % 2 != 0;
            case "even" -> Values.toLong(number(v, name)) % 2 == 0;
            case "divisibleby" -> Values.toLong(number(v, name)) % Values.toLong(number(other(args, name), name)) == 0;
            case "sameas" -> v == other(args, name) || (v != null && Values.isNumber(v) && v.equals(other(args, name)));
            case "lower" -> v instanceof String s && s.equals(s.toLowerCase());
            case "upper" -> v instanceof String s && s.equals(s.toUpperCase());
            default -> throw new TemplateException("no test named '" + name + "'");
        };
    }

    private static Object other(Args args, String test) {
        return args.required(0, "other", test);
    }

    private static Object number(Object v, String test) {
        if (!Values.isNumeric(v)) {
            throw new TemplateException("test '" + test + "' needs a number, got " + Values.typeName(v));
        }
        return v;
    }
}
