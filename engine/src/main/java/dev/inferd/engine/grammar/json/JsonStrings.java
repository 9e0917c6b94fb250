package dev.inferd.engine.grammar.json;

import dev.inferd.engine.grammar.Expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/** JSON strings other than a given set: the names of additional properties, which must differ from the listed ones. */
final class JsonStrings {
    private static final CodePointSet RAW = CodePointSet.of(0x20, Character.MAX_CODE_POINT).minus(CodePointSet.of('"', '"', '\\', '\\'));

    private JsonStrings() {
    }

    /**
     * A JSON string whose value is none of {@code excluded}. While the text typed so far is a prefix of
     * an excluded name it is written without escapes (an escape could spell an excluded name another
     * way); once it leaves every name, anything goes.
     */
    static Expr stringExcept(Set<String> excluded) {
        var children = new ArrayList<TreeMap<Integer, Integer>>();
        var terminal = new ArrayList<Boolean>();
        children.add(new TreeMap<>());
        terminal.add(false);
        for (String name : excluded) {
            int node = 0;
            boolean typable = true;
            for (int cp : name.codePoints().toArray()) {
                if (!RAW.contains(cp) || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    typable = false; // cannot be typed without an escape: unreachable here
                    break;
                }
                Integer next = children.get(node).get(cp);
                if (next == null) {
                    next = children.size();
                    children.add(new TreeMap<>());
                    terminal.add(false);
                    children.get(node).put(cp, next);
                }
                node = next;
            }
            if (typable) terminal.set(node, true);
        }
        int end = children.size();
        List<Expr.Dag.Edge> edges = new ArrayList<>();
        Expr rest = Expr.seq(Expr.star(JsonPieces.STRING_CHAR), JsonPieces.QUOTE);
        for (int node = 0; node < end; node++) {
            CodePointSet others = RAW;
            for (var child : children.get(node).entrySet()) {
                edges.add(new Expr.Dag.Edge(node, child.getValue(), Expr.literal(Character.toString(child.getKey()))));
                others = others.minus(CodePointSet.single(child.getKey()));
            }
            Expr leave = others.asJsonStringChar();
            if (leave != null) edges.add(new Expr.Dag.Edge(node, end, Expr.seq(leave, rest)));
            if (!terminal.get(node)) edges.add(new Expr.Dag.Edge(node, end, JsonPieces.QUOTE));
        }
        return Expr.seq(JsonPieces.QUOTE, new Expr.Dag(end + 1, 0, end, edges));
    }
}
