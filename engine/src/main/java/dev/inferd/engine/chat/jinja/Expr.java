package dev.inferd.engine.chat.jinja;

import java.util.List;

/** An expression of a parsed template. */
sealed interface Expr {

    int line();

    record Literal(Object value, int line) implements Expr { }

    record Name(String name, int line) implements Expr { }

    /** A list literal {@code [a, b]}, or a tuple {@code (a, b)}. */
    record ListLiteral(List<Expr> items, boolean tuple, int line) implements Expr { }

    record DictLiteral(List<Expr> keys, List<Expr> values, int line) implements Expr { }

    /** {@code target.name}. */
    record Attribute(Expr target, String name, int line) implements Expr { }

    /** {@code target[index]}. */
    record Item(Expr target, Expr index, int line) implements Expr { }

    /** {@code target[start:stop:step]}; absent parts are null. */
    record Slice(Expr target, Expr start, Expr stop, Expr step, int line) implements Expr { }

    record Call(Expr callee, Arguments arguments, int line) implements Expr { }

    /** {@code target | name(arguments)}; target is null inside a {@code {% filter %}} block header. */
    record Filter(Expr target, String name, Arguments arguments, int line) implements Expr { }

    /** {@code target is [not] name(arguments)}. */
    record Test(Expr target, String name, Arguments arguments, boolean negated, int line) implements Expr { }

    record Unary(String operator, Expr operand, int line) implements Expr { }

    /** Arithmetic, comparison, {@code in}/{@code not in}, {@code ~}, {@code and}/{@code or}. */
    record Binary(String operator, Expr left, Expr right, int line) implements Expr { }

    /** {@code then if condition else orElse}; orElse is null when absent (then the value is undefined). */
    record Conditional(Expr condition, Expr then, Expr orElse, int line) implements Expr { }

    /** Positional and keyword arguments of a call, filter or test. */
    record Arguments(List<Expr> positional, List<String> names, List<Expr> named) {
        static final Arguments NONE = new Arguments(List.of(), List.of(), List.of());
    }
}
