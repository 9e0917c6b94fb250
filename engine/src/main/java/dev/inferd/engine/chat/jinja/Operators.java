package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.List;

/** Python's arithmetic and comparison operators on template values. */
final class Operators {
    private Operators() {
    }

    static Object binary(String op, Object a, Object b) {
        return switch (op) {
            case "==" -> Values.equal(a, b);
            case "!=" -> !Values.equal(a, b);
            case "<" -> Values.compare(a, b) < 0;
            case "<=" -> Values.compare(a, b) <= 0;
            case ">" -> Values.compare(a, b) > 0;
            case ">=" -> Values.compare(a, b) >= 0;
            case "in" -> Values.contains(b, a);
            case "not in" -> !Values.contains(b, a);
            case "~" -> Values.str(a) + Values.str(b);
            case "+" -> add(a, b);
            case "-", "/", "//", "%", "**" -> arithmetic(op, a, b);
            case "*" -> multiply(a, b);
            default -> throw new TemplateException("unknown operator " + op);
        };
    }

    private static Object add(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return x + y;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            List<Object> out = new ArrayList<>(x);
            out.addAll(y);
            return out;
        }
        return arithmetic("+", a, b);
    }

    private static Object multiply(Object a, Object b) {
        if (a instanceof String s && Values.isInteger(b)) {
            return s.repeat((int) Math.max(0, Values.toLong(b)));
        }
        if (Values.isInteger(a) && b instanceof String s) {
            return s.repeat((int) Math.max(0, Values.toLong(a)));
        }
        if (a instanceof List<?> list && Values.isInteger(b)) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < Values.toLong(b); i++) {
                out.addAll(list);
            }
            return out;
        }
        return arithmetic("*", a, b);
    }

    private static Object arithmetic(String op, Object a, Object b) {
        check(op, a, b);
        boolean integers = !Values.isFloat(a) && !Values.isFloat(b);
        if (integers && op.equals("**") && Values.toLong(b) < 0) {
            return Math.pow(Values.toDouble(a), Values.toDouble(b));
        }
        if (integers && !op.equals("/")) {
            long x = Values.toLong(a);
            long y = Values.toLong(b);
            return switch (op) {
                case "+" -> x + y;
                case "-" -> x - y;
                case "*" -> x * y;
                case "//" -> Math.floorDiv(x, nonZero(y));
                case "%" -> Math.floorMod(x, nonZero(y));
                case "**" -> pow(x, y);
                default -> throw new IllegalStateException(op);
            };
        }
        double x = Values.toDouble(a);
        double y = Values.toDouble(b);
        return switch (op) {
            case "+" -> x + y;
            case "-" -> x - y;
            case "*" -> x * y;
            case "/" -> x / nonZero(y);
            case "//" -> Math.floor(x / nonZero(y));
            case "%" -> x - Math.floor(x / nonZero(y)) * y;
            case "**" -> Math.pow(x, y);
            default -> throw new IllegalStateException(op);
        };
    }

    private static long pow(long base, long exponent) {
        long result = 1;
        for (long i = 0; i < exponent; i++) {
            result *= base;
        }
        return result;
    }

    private static long nonZero(long y) {
        if (y == 0) {
            throw new TemplateException("integer division or modulo by zero");
        }
        return y;
    }

    private static double nonZero(double y) {
        if (y == 0) {
            throw new TemplateException("division by zero");
        }
        return y;
    }

    private static void check(String op, Object a, Object b) {
        if (a instanceof Undefined u) {
            throw new TemplateException(u.message());
        }
        if (b instanceof Undefined u) {
            throw new TemplateException(u.message());
        }
        if (!Values.isNumeric(a) || !Values.isNumeric(b)) {
            throw new TemplateException("unsupported operand type(s) for " + op + ": '"
                    + Values.typeName(a) + "' and '" + Values.typeName(b) + "'");
        }
    }

    static Object negate(Object v) {
        if (v instanceof Undefined u) {
            throw new TemplateException(u.message());
        }
        if (!Values.isNumeric(v)) {
            throw new TemplateException("bad operand type for unary -: '" + Values.typeName(v) + "'");
        }
        // not a ternary: that would promote the long branch to double
        if (Values.isFloat(v)) {
            return -Values.toDouble(v);
        }
        return -Values.toLong(v);
    }
}
