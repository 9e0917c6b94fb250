package dev.inferd.engine.chat.jinja;

import dev.inferd.engine.chat.jinja.Token.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Recursive-descent parser from tokens to the template's statements, following Jinja's grammar and precedence. */
final class Parser {
    private static final Set<String> COMPARISONS = Set.of("==", "!=", "<", "<=", ">", ">=");

    private final List<Token> tokens;
    private int index;

    Parser(List<Token> tokens) {
        this.tokens = tokens;
    }

    List<Node> parseTemplate() {
        return parseBody(Set.of());
    }

    /** Statements until EOF or a block tag whose keyword is in {@code endTags} (left unconsumed, at its BLOCK_BEGIN). */
    private List<Node> parseBody(Set<String> endTags) {
        List<Node> nodes = new ArrayList<>();
        while (true) {
            Token t = peek();
            switch (t.kind()) {
                case EOF -> {
                    if (!endTags.isEmpty()) {
                        throw new TemplateException("unexpected end of template, expected one of " + endTags, t.line());
                    }
                    return nodes;
                }
                case TEXT -> {
                    next();
                    nodes.add(new Node.Text(t.text(), t.line()));
                }
                case VARIABLE_BEGIN -> {
                    next();
                    Expr e = parseExpression();
                    expect(Kind.VARIABLE_END, "'}}'");
                    nodes.add(new Node.Output(e, t.line()));
                }
                case BLOCK_BEGIN -> {
                    Token keyword = tokens.get(index + 1);
                    if (keyword.kind() != Kind.NAME) {
                        throw new TemplateException("expected a tag name after '{%', got " + keyword.describe(), keyword.line());
                    }
                    if (endTags.contains(keyword.text())) {
                        return nodes;
                    }
                    if (keyword.text().startsWith("end") || keyword.text().equals("else") || keyword.text().equals("elif")) {
                        throw new TemplateException("unexpected '" + keyword.text() + "'"
                                + (endTags.isEmpty() ? "" : ", expected one of " + endTags), keyword.line());
                    }
                    next();
                    next();
                    nodes.add(parseStatement(keyword));
                }
                default -> throw new TemplateException("unexpected " + t.describe(), t.line());
            }
        }
    }

    private Node parseStatement(Token keyword) {
        int line = keyword.line();
        return switch (keyword.text()) {
            case "if" -> parseIf(line);
            case "for" -> parseFor(line);
            case "set" -> parseSet(line);
            case "macro" -> parseMacro(line);
            case "filter" -> parseFilterBlock(line);
            case "break", "continue" -> {
                endOfTag();
                yield new Node.LoopControl(keyword.text().equals("break"), line);
            }
            case "generation" -> {
                endOfTag();
                List<Node> body = parseBody(Set.of("endgeneration"));
                closeBlock("endgeneration");
                yield new Node.Generation(body, line);
            }
            default -> throw new TemplateException("unknown tag '" + keyword.text() + "'", line);
        };
    }

    private Node parseIf(int line) {
        List<Node.Branch> branches = new ArrayList<>();
        Expr condition = parseExpression();
        endOfTag();
        while (true) {
            List<Node> body = parseBody(Set.of("elif", "else", "endif"));
            branches.add(new Node.Branch(condition, body));
            next();
            String tag = next().text();
            switch (tag) {
                case "elif" -> {
                    condition = parseExpression();
                    endOfTag();
                }
                case "else" -> {
                    endOfTag();
                    List<Node> orElse = parseBody(Set.of("endif"));
                    closeBlock("endif");
                    return new Node.If(branches, orElse, line);
                }
                default -> {
                    endOfTag();
                    return new Node.If(branches, List.of(), line);
                }
            }
        }
    }

    private Node parseFor(int line) {
        List<String> targets = new ArrayList<>();
        boolean parenthesized = acceptOperator("(");
        do {
            targets.add(expectName());
        } while (acceptOperator(","));
        if (parenthesized) {
            expectOperator(")");
        }
        expectKeyword("in");
        Expr iterable = parseOr();
        Expr filter = null;
        if (peek().isName("if")) {
            next();
            filter = parseOr();
        }
        if (peek().isName("recursive")) {
            throw new TemplateException("recursive loops are not supported", peek().line());
        }
        endOfTag();
        List<Node> body = parseBody(Set.of("else", "endfor"));
        List<Node> orElse = List.of();
        next();
        if (next().text().equals("else")) {
            endOfTag();
            orElse = parseBody(Set.of("endfor"));
            closeBlock("endfor");
        } else {
            endOfTag();
        }
        return new Node.For(targets, iterable, filter, body, orElse, line);
    }

    private Node parseSet(int line) {
        String name = expectName();
        if (peek().kind() == Kind.BLOCK_END) {
            next();
            List<Node> body = parseBody(Set.of("endset"));
            closeBlock("endset");
            return new Node.SetBlock(name, body, line);
        }
        if (acceptOperator(".")) {
            String attribute = expectName();
            expectOperator("=");
            Expr value = parseExpressionOrTuple();
            endOfTag();
            return new Node.SetAttribute(new Expr.Name(name, line), attribute, value, line);
        }
        List<String> names = new ArrayList<>(List.of(name));
        while (acceptOperator(",")) {
            names.add(expectName());
        }
        expectOperator("=");
        Expr value = parseExpressionOrTuple();
        endOfTag();
        return new Node.Set(names, value, line);
    }

    private Node parseMacro(int line) {
        String name = expectName();
        expectOperator("(");
        List<Node.Parameter> parameters = new ArrayList<>();
        while (!acceptOperator(")")) {
            if (!parameters.isEmpty()) {
                expectOperator(",");
                if (acceptOperator(")")) {
                    break;
                }
            }
            String parameter = expectName();
            Expr defaultValue = acceptOperator("=") ? parseExpression() : null;
            parameters.add(new Node.Parameter(parameter, defaultValue));
        }
        endOfTag();
        List<Node> body = parseBody(Set.of("endmacro"));
        closeBlock("endmacro");
        return new Node.Macro(name, parameters, body, line);
    }

    private Node parseFilterBlock(int line) {
        Expr.Filter filter = parseFilter(null);
        endOfTag();
        List<Node> body = parseBody(Set.of("endfilter"));
        closeBlock("endfilter");
        return new Node.FilterBlock(filter, body, line);
    }

    /** Consumes {@code {% name %}} at the current BLOCK_BEGIN. */
    private void closeBlock(String name) {
        next();
        next();
        endOfTag();
    }

    // ---- expressions, lowest precedence first ----

    Expr parseExpression() {
        Expr e = parseOr();
        if (peek().isName("if")) {
            int line = next().line();
            Expr condition = parseOr();
            Expr orElse = null;
            if (peek().isName("else")) {
                next();
                orElse = parseExpression();
            }
            return new Expr.Conditional(condition, e, orElse, line);
        }
        return e;
    }

    /** An expression, or a bare tuple {@code a, b} as allowed on the right of {@code set}. */
    private Expr parseExpressionOrTuple() {
        Expr first = parseExpression();
        if (!peek().isOperator(",")) {
            return first;
        }
        List<Expr> items = new ArrayList<>(List.of(first));
        while (acceptOperator(",")) {
            items.add(parseExpression());
        }
        return new Expr.ListLiteral(items, true, first.line());
    }

    private Expr parseOr() {
        Expr left = parseAnd();
        while (peek().isName("or")) {
            int line = next().line();
            left = new Expr.Binary("or", left, parseAnd(), line);
        }
        return left;
    }

    private Expr parseAnd() {
        Expr left = parseNot();
        while (peek().isName("and")) {
            int line = next().line();
            left = new Expr.Binary("and", left, parseNot(), line);
        }
        return left;
    }

    private Expr parseNot() {
        if (peek().isName("not")) {
            int line = next().line();
            return new Expr.Unary("not", parseNot(), line);
        }
        return parseComparison();
    }

    private Expr parseComparison() {
        Expr left = parseAdditive();
        while (true) {
            Token t = peek();
            if (t.kind() == Kind.OPERATOR && COMPARISONS.contains(t.text())) {
                next();
                left = new Expr.Binary(t.text(), left, parseAdditive(), t.line());
            } else if (t.isName("in")) {
                next();
                left = new Expr.Binary("in", left, parseAdditive(), t.line());
            } else if (t.isName("not") && tokens.get(index + 1).isName("in")) {
                next();
                next();
                left = new Expr.Binary("not in", left, parseAdditive(), t.line());
            } else {
                return left;
            }
        }
    }

    private Expr parseAdditive() {
        Expr left = parseConcat();
        while (peek().isOperator("+") || peek().isOperator("-")) {
            Token op = next();
            left = new Expr.Binary(op.text(), left, parseConcat(), op.line());
        }
        return left;
    }

    private Expr parseConcat() {
        Expr left = parseMultiplicative();
        while (peek().isOperator("~")) {
            int line = next().line();
            left = new Expr.Binary("~", left, parseMultiplicative(), line);
        }
        return left;
    }

    private Expr parseMultiplicative() {
        Expr left = parsePower();
        while (peek().isOperator("*") || peek().isOperator("/") || peek().isOperator("//") || peek().isOperator("%")) {
            Token op = next();
            left = new Expr.Binary(op.text(), left, parsePower(), op.line());
        }
        return left;
    }

    private Expr parsePower() {
        Expr left = parseUnary(true);
        while (peek().isOperator("**")) {
            int line = next().line();
            left = new Expr.Binary("**", left, parseUnary(true), line);
        }
        return left;
    }

    /** As in Jinja, a sign binds looser than filters of its operand's own postfix chain: {@code -x|abs} is {@code (-x)|abs}. */
    private Expr parseUnary(boolean withFilters) {
        Token t = peek();
        Expr e;
        if (t.isOperator("-") || t.isOperator("+")) {
            next();
            e = new Expr.Unary(t.text(), parseUnary(false), t.line());
        } else {
            e = parsePostfix(parsePrimary());
        }
        return withFilters ? parseFiltersAndTests(e) : e;
    }

    private Expr parseFiltersAndTests(Expr e) {
        while (true) {
            if (peek().isOperator("|")) {
                next();
                e = parseFilter(e);
            } else if (peek().isName("is")) {
                e = parseTest(e);
            } else {
                return e;
            }
        }
    }

    private Expr.Filter parseFilter(Expr target) {
        Token nameToken = peek();
        String name = expectName();
        while (acceptOperator(".")) {
            name += "." + expectName();
        }
        if (!Filters.exists(name)) {
            throw new TemplateException("no filter named '" + name + "'", nameToken.line());
        }
        Expr.Arguments args = peek().isOperator("(") ? parseArguments() : Expr.Arguments.NONE;
        return new Expr.Filter(target, name, args, nameToken.line());
    }

    private Expr parseTest(Expr target) {
        int line = next().line();
        boolean negated = false;
        if (peek().isName("not")) {
            next();
            negated = true;
        }
        Token nameToken = peek();
        String name = expectName();
        if (!Tests.exists(name)) {
            throw new TemplateException("no test named '" + name + "'", nameToken.line());
        }
        Expr.Arguments args = Expr.Arguments.NONE;
        Token t = peek();
        if (t.isOperator("(")) {
            args = parseArguments();
        } else if (startsBareTestArgument(t)) {
            args = new Expr.Arguments(List.of(parsePostfix(parsePrimary())), List.of(), List.of());
        }
        return new Expr.Test(target, name, args, negated, line);
    }

    /** {@code x is divisibleby 3}, {@code x is equalto 'a'}: a test may take one argument without parentheses. */
    private static boolean startsBareTestArgument(Token t) {
        return switch (t.kind()) {
            case STRING, INTEGER, FLOAT -> true;
            case NAME -> !Set.of("else", "or", "and", "if", "in", "not", "is").contains(t.text());
            case OPERATOR -> t.text().equals("[") || t.text().equals("{");
            default -> false;
        };
    }

    private Expr parsePostfix(Expr e) {
        while (true) {
            Token t = peek();
            if (t.isOperator(".")) {
                next();
                Token name = next();
                if (name.kind() != Kind.NAME && name.kind() != Kind.INTEGER) {
                    throw new TemplateException("expected an attribute name after '.', got " + name.describe(), name.line());
                }
                e = name.kind() == Kind.INTEGER
                        ? new Expr.Item(e, new Expr.Literal(name.value(), name.line()), t.line())
                        : new Expr.Attribute(e, name.text(), t.line());
            } else if (t.isOperator("[")) {
                next();
                e = parseSubscript(e, t.line());
            } else if (t.isOperator("(")) {
                e = new Expr.Call(e, parseArguments(), t.line());
            } else {
                return e;
            }
        }
    }

    private Expr parseSubscript(Expr target, int line) {
        Expr[] parts = new Expr[3];
        int part = 0;
        boolean slice = false;
        while (!peek().isOperator("]")) {
            if (acceptOperator(":")) {
                slice = true;
                part++;
                if (part > 2) {
                    throw new TemplateException("too many ':' in slice", line);
                }
            } else if (parts[part] == null) {
                parts[part] = parseExpression();
            } else {
                throw new TemplateException("expected ']' or ':', got " + peek().describe(), peek().line());
            }
        }
        next();
        if (slice) {
            return new Expr.Slice(target, parts[0], parts[1], parts[2], line);
        }
        if (parts[0] == null) {
            throw new TemplateException("empty subscript", line);
        }
        return new Expr.Item(target, parts[0], line);
    }

    private Expr.Arguments parseArguments() {
        expectOperator("(");
        List<Expr> positional = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Expr> named = new ArrayList<>();
        boolean first = true;
        while (!acceptOperator(")")) {
            if (!first) {
                expectOperator(",");
                if (acceptOperator(")")) {
                    break;
                }
            }
            first = false;
            if (peek().kind() == Kind.NAME && tokens.get(index + 1).isOperator("=")) {
                names.add(next().text());
                next();
                named.add(parseExpression());
            } else {
                if (!names.isEmpty()) {
                    throw new TemplateException("positional argument after keyword argument", peek().line());
                }
                positional.add(parseExpression());
            }
        }
        return new Expr.Arguments(positional, names, named);
    }

    private Expr parsePrimary() {
        Token t = next();
        int line = t.line();
        switch (t.kind()) {
            case STRING -> {
                var sb = new StringBuilder((String) t.value());
                while (peek().kind() == Kind.STRING) {
                    sb.append((String) next().value());
                }
                return new Expr.Literal(sb.toString(), line);
            }
            case INTEGER, FLOAT -> {
                return new Expr.Literal(t.value(), line);
            }
            case NAME -> {
                return switch (t.text()) {
                    case "true", "True" -> new Expr.Literal(Boolean.TRUE, line);
                    case "false", "False" -> new Expr.Literal(Boolean.FALSE, line);
                    case "none", "None" -> new Expr.Literal(null, line);
                    default -> new Expr.Name(t.text(), line);
                };
            }
            case OPERATOR -> {
                switch (t.text()) {
                    case "(" -> {
                        return parseParenthesized(line);
                    }
                    case "[" -> {
                        return new Expr.ListLiteral(parseSequence("]"), false, line);
                    }
                    case "{" -> {
                        return parseDict(line);
                    }
                    default -> { }
                }
            }
            default -> { }
        }
        throw new TemplateException("unexpected " + t.describe() + " in expression", line);
    }

    private Expr parseParenthesized(int line) {
        if (acceptOperator(")")) {
            return new Expr.ListLiteral(List.of(), true, line);
        }
        Expr first = parseExpression();
        if (acceptOperator(")")) {
            return first;
        }
        List<Expr> items = new ArrayList<>(List.of(first));
        while (acceptOperator(",")) {
            if (peek().isOperator(")")) {
                break;
            }
            items.add(parseExpression());
        }
        expectOperator(")");
        return new Expr.ListLiteral(items, true, line);
    }

    private List<Expr> parseSequence(String close) {
        List<Expr> items = new ArrayList<>();
        while (!acceptOperator(close)) {
            if (!items.isEmpty()) {
                expectOperator(",");
                if (acceptOperator(close)) {
                    break;
                }
            }
            items.add(parseExpression());
        }
        return items;
    }

    private Expr parseDict(int line) {
        List<Expr> keys = new ArrayList<>();
        List<Expr> values = new ArrayList<>();
        while (!acceptOperator("}")) {
            if (!keys.isEmpty()) {
                expectOperator(",");
                if (acceptOperator("}")) {
                    break;
                }
            }
            keys.add(parseExpression());
            expectOperator(":");
            values.add(parseExpression());
        }
        return new Expr.DictLiteral(keys, values, line);
    }

    // ---- token helpers ----

    private Token peek() {
        return tokens.get(index);
    }

    private Token next() {
        Token t = tokens.get(index);
        if (t.kind() != Kind.EOF) {
            index++;
        }
        return t;
    }

    private boolean acceptOperator(String op) {
        if (peek().isOperator(op)) {
            next();
            return true;
        }
        return false;
    }

    private void expectOperator(String op) {
        if (!acceptOperator(op)) {
            throw new TemplateException("expected '" + op + "', got " + peek().describe(), peek().line());
        }
    }

    private void expectKeyword(String name) {
        if (!peek().isName(name)) {
            throw new TemplateException("expected '" + name + "', got " + peek().describe(), peek().line());
        }
        next();
    }

    private String expectName() {
        Token t = peek();
        if (t.kind() != Kind.NAME) {
            throw new TemplateException("expected a name, got " + t.describe(), t.line());
        }
        next();
        return t.text();
    }

    private void expect(Kind kind, String what) {
        Token t = peek();
        if (t.kind() != kind) {
            throw new TemplateException("expected " + what + ", got " + t.describe(), t.line());
        }
        next();
    }

    private void endOfTag() {
        expect(Kind.BLOCK_END, "end of tag '%}'");
    }
}
