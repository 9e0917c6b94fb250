package dev.inferd.engine.chat.jinja;

import java.util.List;

/** A statement of a parsed template. */
sealed interface Node {

    int line();

    /** Literal template text, whitespace control already applied. */
    record Text(String text, int line) implements Node { }

    /** {@code {{ expr }}}. */
    record Output(Expr expr, int line) implements Node { }

    /** {@code {% if %}...{% elif %}...{% else %}...{% endif %}}; {@code orElse} is empty when absent. */
    record If(List<Branch> branches, List<Node> orElse, int line) implements Node { }

    record Branch(Expr condition, List<Node> body) { }

    /** {@code {% for a, b in iterable if filter %}...{% else %}...{% endfor %}}; filter may be null. */
    record For(List<String> targets, Expr iterable, Expr filter, List<Node> body, List<Node> orElse, int line)
            implements Node { }

    /** {@code {% set name = value %}}, or {@code {% set a, b = value %}} with several names. */
    record Set(List<String> names, Expr value, int line) implements Node { }

    /** {@code {% set ns.attribute = value %}}. */
    record SetAttribute(Expr target, String attribute, Expr value, int line) implements Node { }

    /** {@code {% set name %}...{% endset %}}: the rendered body becomes the value. */
    record SetBlock(String name, List<Node> body, int line) implements Node { }

    /** {@code {% macro name(a, b=default) %}...{% endmacro %}}. */
    record Macro(String name, List<Parameter> parameters, List<Node> body, int line) implements Node { }

    /** A macro parameter; {@code defaultValue} is null when the parameter has none. */
    record Parameter(String name, Expr defaultValue) { }

    /** {@code {% filter name(args) %}...{% endfilter %}}: the rendered body goes through the filter. */
    record FilterBlock(Expr.Filter filter, List<Node> body, int line) implements Node { }

    /** {@code {% break %}} and {@code {% continue %}} (HF enables the loopcontrols extension). */
    record LoopControl(boolean isBreak, int line) implements Node { }

    /** {@code {% generation %}...{% endgeneration %}} (HF's assistant-mask marker): renders its body. */
    record Generation(List<Node> body, int line) implements Node { }
}
