package dev.inferd.engine.chat.jinja;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Executes a parsed template once; one instance per render, so rendering is thread-safe. */
final class Interpreter {
    private static final int MAX_MACRO_DEPTH = 256;

    /** How a run of statements ended: normally, or by {@code break}/{@code continue} out of the enclosing loop. */
    enum Signal { NORMAL, BREAK, CONTINUE }

    private int macroDepth;

    Signal execute(List<Node> nodes, Scope scope, StringBuilder out) {
        for (Node node : nodes) {
            Signal signal;
            try {
                signal = execute(node, scope, out);
            } catch (TemplateException e) {
                throw e.atLine(node.line());
            } catch (StackOverflowError | NullPointerException | ClassCastException | IllegalArgumentException | IndexOutOfBoundsException e) {
                throw new TemplateException("internal error: " + e, node.line(), e);
            }
            if (signal != Signal.NORMAL) {
                return signal;
            }
        }
        return Signal.NORMAL;
    }

    private Signal execute(Node node, Scope scope, StringBuilder out) {
        switch (node) {
            case Node.Text t -> out.append(t.text());
            case Node.Output o -> out.append(Values.str(evaluate(o.expr(), scope)));
            case Node.If i -> {
                for (Node.Branch b : i.branches()) {
                    if (Values.truthy(evaluate(b.condition(), scope))) {
                        return execute(b.body(), scope, out);
                    }
                }
                return execute(i.orElse(), scope, out);
            }
            case Node.For f -> {
                return executeFor(f, scope, out);
            }
            case Node.Set s -> assign(s.names(), evaluate(s.value(), scope), scope);
            case Node.SetAttribute s -> {
                Object target = evaluate(s.target(), scope);
                if (!(target instanceof Namespace ns)) {
                    throw new TemplateException("cannot assign attribute '" + s.attribute() + "' on a "
                            + Values.typeName(target) + ", only on a namespace()");
                }
                ns.attributes.put(s.attribute(), evaluate(s.value(), scope));
            }
            case Node.SetBlock s -> {
                var body = new StringBuilder();
                execute(s.body(), scope, body);
                scope.set(s.name(), body.toString());
            }
            case Node.Macro m -> scope.set(m.name(), macro(m, scope));
            case Node.FilterBlock f -> {
                var body = new StringBuilder();
                execute(f.body(), scope, body);
                out.append(Values.str(applyFilter(f.filter(), body.toString(), scope)));
            }
            case Node.LoopControl c -> {
                return c.isBreak() ? Signal.BREAK : Signal.CONTINUE;
            }
            case Node.Generation g -> {
                return execute(g.body(), scope, out);
            }
        }
        return Signal.NORMAL;
    }

    private Signal executeFor(Node.For f, Scope scope, StringBuilder out) {
        List<Object> items = Values.iterate(evaluate(f.iterable(), scope));
        Scope loopScope = new Scope(scope);
        if (f.filter() != null) {
            List<Object> kept = new ArrayList<>();
            for (Object item : items) {
                assign(f.targets(), item, loopScope);
                if (Values.truthy(evaluate(f.filter(), loopScope))) {
                    kept.add(item);
                }
            }
            items = kept;
        }
        if (items.isEmpty()) {
            return execute(f.orElse(), scope, out);
        }
        LoopInfo loop = new LoopInfo(items);
        loopScope.set("loop", loop);
        for (int i = 0; i < items.size(); i++) {
            loop.index0 = i;
            assign(f.targets(), items.get(i), loopScope);
            if (execute(f.body(), loopScope, out) == Signal.BREAK) {
                break;
            }
        }
        return Signal.NORMAL;
    }

    private static void assign(List<String> names, Object value, Scope scope) {
        if (names.size() == 1) {
            scope.set(names.getFirst(), value);
            return;
        }
        List<Object> parts = Values.iterate(value);
        if (parts.size() != names.size()) {
            throw new TemplateException((parts.size() > names.size() ? "too many" : "not enough")
                    + " values to unpack (expected " + names.size() + ", got " + parts.size() + ")");
        }
        for (int i = 0; i < names.size(); i++) {
            scope.set(names.get(i), parts.get(i));
        }
    }

    private JinjaFunction macro(Node.Macro m, Scope definition) {
        return (positional, named) -> {
            if (positional.size() > m.parameters().size()) {
                throw new TemplateException("macro '" + m.name() + "' takes " + m.parameters().size()
                        + " arguments, got " + positional.size());
            }
            Scope local = new Scope(definition);
            for (String name : named.keySet()) {
                if (m.parameters().stream().noneMatch(p -> p.name().equals(name))) {
                    throw new TemplateException("macro '" + m.name() + "' has no argument '" + name + "'");
                }
            }
            for (int i = 0; i < m.parameters().size(); i++) {
                Node.Parameter p = m.parameters().get(i);
                Object value;
                if (i < positional.size()) {
                    value = positional.get(i);
                } else if (named.containsKey(p.name())) {
                    value = named.get(p.name());
                } else if (p.defaultValue() != null) {
                    value = evaluate(p.defaultValue(), local);
                } else {
                    value = new Undefined("parameter '" + p.name() + "' of macro '" + m.name() + "'");
                }
                local.set(p.name(), value);
            }
            if (++macroDepth > MAX_MACRO_DEPTH) {
                throw new TemplateException("macro '" + m.name() + "' recursed more than " + MAX_MACRO_DEPTH + " deep");
            }
            try {
                var body = new StringBuilder();
                execute(m.body(), local, body);
                return body.toString();
            } finally {
                macroDepth--;
            }
        };
    }

    Object evaluate(Expr e, Scope scope) {
        try {
            return evaluateUnchecked(e, scope);
        } catch (TemplateException ex) {
            throw ex.atLine(e.line());
        }
    }

    private Object evaluateUnchecked(Expr e, Scope scope) {
        return switch (e) {
            case Expr.Literal l -> l.value();
            case Expr.Name n -> scope.lookup(n.name());
            case Expr.ListLiteral l -> {
                List<Object> items = new ArrayList<>(l.items().size());
                for (Expr item : l.items()) {
                    items.add(evaluate(item, scope));
                }
                yield l.tuple() ? new Tuple(items) : items;
            }
            case Expr.DictLiteral d -> {
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < d.keys().size(); i++) {
                    map.put(evaluate(d.keys().get(i), scope), evaluate(d.values().get(i), scope));
                }
                yield map;
            }
            case Expr.Attribute a -> Access.attribute(evaluate(a.target(), scope), a.name());
            case Expr.Item i -> Access.item(evaluate(i.target(), scope), evaluate(i.index(), scope));
            case Expr.Slice s -> Access.slice(evaluate(s.target(), scope), bound(s.start(), scope),
                    bound(s.stop(), scope), bound(s.step(), scope));
            case Expr.Call c -> call(evaluate(c.callee(), scope), c.arguments(), scope);
            case Expr.Filter f -> applyFilter(f, evaluate(f.target(), scope), scope);
            case Expr.Test t -> Tests.apply(t.name(), evaluate(t.target(), scope), arguments(t.arguments(), scope)) != t.negated();
            case Expr.Unary u -> switch (u.operator()) {
                case "not" -> !Values.truthy(evaluate(u.operand(), scope));
                case "-" -> Operators.negate(evaluate(u.operand(), scope));
                default -> Operators.negate(Operators.negate(evaluate(u.operand(), scope)));
            };
            case Expr.Binary b -> switch (b.operator()) {
                case "and" -> {
                    Object left = evaluate(b.left(), scope);
                    yield Values.truthy(left) ? evaluate(b.right(), scope) : left;
                }
                case "or" -> {
                    Object left = evaluate(b.left(), scope);
                    yield Values.truthy(left) ? left : evaluate(b.right(), scope);
                }
                default -> Operators.binary(b.operator(), evaluate(b.left(), scope), evaluate(b.right(), scope));
            };
            case Expr.Conditional c -> Values.truthy(evaluate(c.condition(), scope))
                    ? evaluate(c.then(), scope)
                    : c.orElse() == null ? new Undefined("the else branch of an inline if") : evaluate(c.orElse(), scope);
        };
    }

    private Object bound(Expr e, Scope scope) {
        if (e == null) {
            return null;
        }
        Object v = evaluate(e, scope);
        if (v == null || v instanceof Undefined) {
            return null;
        }
        if (!Values.isInteger(v) && !(v instanceof Boolean)) {
            throw new TemplateException("slice indices must be integers or None, not " + Values.typeName(v));
        }
        return v;
    }

    private Object call(Object callee, Expr.Arguments arguments, Scope scope) {
        Args args = arguments(arguments, scope);
        return switch (callee) {
            case JinjaFunction f -> f.call(args.positional(), args.named());
            case Undefined u -> throw new TemplateException(u.message() + ", so it cannot be called");
            case null, default -> throw new TemplateException("'" + Values.typeName(callee) + "' object is not callable");
        };
    }

    private Object applyFilter(Expr.Filter f, Object value, Scope scope) {
        return Filters.apply(f.name(), value, arguments(f.arguments(), scope));
    }

    private Args arguments(Expr.Arguments a, Scope scope) {
        List<Object> positional = new ArrayList<>(a.positional().size());
        for (Expr e : a.positional()) {
            positional.add(evaluate(e, scope));
        }
        Map<String, Object> named = new LinkedHashMap<>();
        for (int i = 0; i < a.names().size(); i++) {
            named.put(a.names().get(i), evaluate(a.named().get(i), scope));
        }
        return Args.of(positional, named);
    }
}
