package dev.inferd.engine.grammar;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A grammar expression over bytes. Text is matched as its UTF-8 bytes, so a character split across
 * tokens is matched byte by byte like any other. Expressions are trees; {@link Call} refers to a rule
 * of the enclosing {@link Grammar} (recursion), {@link Dag} shares sub-paths that a tree would repeat.
 */
public sealed interface Expr {

    /** One byte in {@code [lo, hi]} (unsigned, 0..255). */
    record ByteRange(int lo, int hi) implements Expr {
        public ByteRange {
            if (lo < 0 || hi > 255 || lo > hi) throw new IllegalArgumentException("bad byte range " + lo + ".." + hi);
        }
    }

    /** The items one after another; empty matches the empty string. */
    record Seq(List<Expr> items) implements Expr {
        public Seq {
            items = List.copyOf(items);
        }
    }

    /** Any one of the options; at least one option. */
    record Alt(List<Expr> options) implements Expr {
        public Alt {
            options = List.copyOf(options);
            if (options.isEmpty()) throw new IllegalArgumentException("an alternative needs at least one option");
        }
    }

    /** {@code body} repeated between {@code min} and {@code max} times; {@code max} -1 for no bound. */
    record Repeat(Expr body, int min, int max) implements Expr {
        public Repeat {
            if (min < 0 || (max != -1 && max < min)) throw new IllegalArgumentException("bad repeat " + min + ".." + max);
        }
    }

    /** The rule with this index in the grammar (its own stack frame, so rules may recurse). */
    record Call(int rule) implements Expr {
    }

    /**
     * A directed acyclic graph of nodes {@code 0..nodes-1} whose edges each match an expression, from
     * node {@code start} to node {@code end}: paths share nodes where a tree would copy whole subtrees
     * (an object's optional members, each present or not).
     */
    record Dag(int nodes, int start, int end, List<Edge> edges) implements Expr {
        public record Edge(int from, int to, Expr label) {
        }

        public Dag {
            edges = List.copyOf(edges);
        }
    }

    Expr EMPTY = new Seq(List.of());

    static Expr seq(Expr... items) {
        return items.length == 1 ? items[0] : new Seq(List.of(items));
    }

    static Expr seq(List<Expr> items) {
        return items.size() == 1 ? items.getFirst() : new Seq(items);
    }

    static Expr alt(Expr... options) {
        return options.length == 1 ? options[0] : new Alt(List.of(options));
    }

    static Expr alt(List<Expr> options) {
        return options.size() == 1 ? options.getFirst() : new Alt(options);
    }

    static Expr optional(Expr e) {
        return new Repeat(e, 0, 1);
    }

    static Expr star(Expr e) {
        return new Repeat(e, 0, -1);
    }

    static Expr plus(Expr e) {
        return new Repeat(e, 1, -1);
    }

    static Expr repeat(Expr e, int min, int max) {
        return new Repeat(e, min, max);
    }

    static Expr range(int lo, int hi) {
        return new ByteRange(lo, hi);
    }

    static Expr oneByte(int b) {
        return new ByteRange(b, b);
    }

    /** Exactly the UTF-8 bytes of {@code text}. */
    static Expr literal(String text) {
        return bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    static Expr bytes(byte[] bytes) {
        var items = new ArrayList<Expr>(bytes.length);
        for (byte b : bytes) items.add(oneByte(b & 0xFF));
        return seq(items);
    }
}
