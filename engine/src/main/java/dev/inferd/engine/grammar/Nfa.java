package dev.inferd.engine.grammar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A grammar's rules as one recursive transition network: states with byte-range edges, empty edges,
 * and call edges that enter a rule and come back to a return state. Built once per grammar; the
 * {@link LazyDfa} explores it.
 */
final class Nfa {
    /** Per state: {@code lo, hi, target} triples. */
    final int[][] byteEdges;
    /**
     * Per state, per byte edge: what the edge counts towards an output's length. 1, but 0 for the
     * bytes of a special token's frame after its first ({@link TokenVocabulary#specialTokenBytes}), so
     * that a special token counts as one, as it is one token.
     */
    final int[][] byteEdgeCosts;
    /** The special tokens' texts the grammar names (as framed bytes). */
    final java.util.List<byte[]> specialTokens;
    final int[][] emptyEdges;
    /** Per state: {@code rule, returnState} pairs. */
    final int[][] callEdges;
    /** The rule a state ends, or -1. */
    final int[] endOfRule;
    final int[] ruleStart;
    /** Bytes that no edge tells apart share a class: transitions are stored per class. */
    final int[] byteClass = new int[256];
    final int classCount;
    /**
     * Per state: the fewest bytes from it to the end of its rule (calls entered cost their rule's
     * fewest bytes), {@link #UNREACHABLE} when the rule cannot end from there.
     */
    final int[] bytesToRuleEnd;

    /** Larger than any finite distance, and still safe to add a few of. */
    static final int UNREACHABLE = Integer.MAX_VALUE / 4;

    private Nfa(Builder b) {
        int n = b.byteEdges.size();
        byteEdges = new int[n][];
        byteEdgeCosts = new int[n][];
        emptyEdges = new int[n][];
        callEdges = new int[n][];
        for (int s = 0; s < n; s++) {
            byteEdges[s] = b.byteEdges.get(s).toArray();
            byteEdgeCosts[s] = b.byteEdgeCosts.get(s).toArray();
            emptyEdges[s] = b.emptyEdges.get(s).toArray();
            callEdges[s] = b.callEdges.get(s).toArray();
        }
        endOfRule = b.endOfRule.toArray();
        ruleStart = b.ruleStart;
        specialTokens = java.util.List.copyOf(b.specialTokens);
        boolean[] boundary = new boolean[257];
        boundary[0] = true;
        for (int[] edges : byteEdges) {
            for (int i = 0; i < edges.length; i += 3) {
                boundary[edges[i]] = true;
                boundary[edges[i + 1] + 1] = true;
            }
        }
        int c = -1;
        for (int v = 0; v < 256; v++) {
            if (boundary[v]) c++;
            byteClass[v] = c;
        }
        classCount = c + 1;
        bytesToRuleEnd = shortestToRuleEnd();
    }

    /**
     * Bellman-Ford style relaxation until nothing changes: a state's distance is the least over its
     * edges (a byte edge costs 1, an empty edge 0, a call edge the called rule's shortest length), and
     * an end-of-rule state is 0. States are numbered roughly in the order their expressions appear,
     * so sweeping backwards settles forward paths in one pass; loops and recursion take a few more.
     */
    private int[] shortestToRuleEnd() {
        int n = byteEdges.length;
        int[] dist = new int[n];
        java.util.Arrays.fill(dist, UNREACHABLE);
        for (int q = 0; q < n; q++) {
            if (endOfRule[q] >= 0) dist[q] = 0;
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int q = n - 1; q >= 0; q--) {
                int best = dist[q];
                int[] bytes = byteEdges[q];
                int[] costs = byteEdgeCosts[q];
                for (int i = 0; i < bytes.length; i += 3) best = Math.min(best, dist[bytes[i + 2]] + costs[i / 3]);
                for (int t : emptyEdges[q]) best = Math.min(best, dist[t]);
                int[] calls = callEdges[q];
                for (int i = 0; i < calls.length; i += 2) {
                    best = Math.min(best, dist[ruleStart[calls[i]]] + dist[calls[i + 1]]);
                }
                if (best < dist[q]) {
                    dist[q] = Math.min(best, UNREACHABLE);
                    changed = true;
                }
            }
        }
        return dist;
    }

    int stateCount() {
        return byteEdges.length;
    }

    static Nfa build(List<Expr> rules) {
        var b = new Builder(rules.size());
        for (int r = 0; r < rules.size(); r++) {
            int start = b.newState();
            int end = b.newState();
            b.ruleStart[r] = start;
            b.endOfRule.set(end, r);
            b.add(rules.get(r), start, end);
        }
        return new Nfa(b);
    }

    private static final class Builder {
        final List<Ints> byteEdges = new ArrayList<>();
        final List<Ints> byteEdgeCosts = new ArrayList<>();
        final List<byte[]> specialTokens = new ArrayList<>();
        /** The cost of the byte edges being added (0 inside a special token's frame). */
        private int cost = 1;
        final List<Ints> emptyEdges = new ArrayList<>();
        final List<Ints> callEdges = new ArrayList<>();
        final Ints endOfRule = new Ints();
        final int[] ruleStart;
        private final int ruleCount;

        Builder(int rules) {
            ruleStart = new int[rules];
            ruleCount = rules;
        }

        int newState() {
            byteEdges.add(new Ints());
            byteEdgeCosts.add(new Ints());
            emptyEdges.add(new Ints());
            callEdges.add(new Ints());
            endOfRule.add(-1);
            return byteEdges.size() - 1;
        }

        void empty(int from, int to) {
            emptyEdges.get(from).add(to);
        }

        /** Adds edges so that the paths from {@code from} to {@code to} match exactly {@code e}. */
        void add(Expr e, int from, int to) {
            switch (e) {
                case Expr.ByteRange(int lo, int hi) -> {
                    var edges = byteEdges.get(from);
                    edges.add(lo);
                    edges.add(hi);
                    edges.add(to);
                    byteEdgeCosts.get(from).add(cost);
                }
                case Expr.Seq(List<Expr> items) -> {
                    if (items.isEmpty()) {
                        empty(from, to);
                        return;
                    }
                    if (isSpecialToken(items)) {
                        specialTokens.add(frameBytes(items));
                        int current = from;
                        for (int i = 0; i < items.size(); i++) {
                            cost = i == 0 ? 1 : 0;
                            int next = i == items.size() - 1 ? to : newState();
                            add(items.get(i), current, next);
                            current = next;
                        }
                        cost = 1;
                        return;
                    }
                    int current = from;
                    for (int i = 0; i < items.size() - 1; i++) {
                        int next = newState();
                        add(items.get(i), current, next);
                        current = next;
                    }
                    add(items.getLast(), current, to);
                }
                case Expr.Alt(List<Expr> options) -> {
                    // No construct adds edges into its start or out of its end state (loops live on
                    // states of their own), so the options can share both without mixing paths.
                    for (Expr option : options) add(option, from, to);
                }
                case Expr.Repeat(Expr body, int min, int max) -> {
                    int current = from;
                    for (int i = 0; i < min; i++) {
                        int next = newState();
                        add(body, current, next);
                        current = next;
                    }
                    if (max == -1) {
                        int loop = newState();
                        int back = newState();
                        empty(current, loop);
                        add(body, loop, back);
                        empty(back, loop);
                        empty(loop, to);
                    } else {
                        for (int i = min; i < max; i++) {
                            empty(current, to);
                            int next = newState();
                            add(body, current, next);
                            current = next;
                        }
                        empty(current, to);
                    }
                }
                case Expr.Call(int rule) -> {
                    if (rule < 0 || rule >= ruleCount) throw new IllegalArgumentException("no rule " + rule);
                    var calls = callEdges.get(from);
                    calls.add(rule);
                    calls.add(to);
                }
                case Expr.Dag(int nodes, int start, int end, List<Expr.Dag.Edge> edges) -> {
                    int[] state = new int[nodes];
                    for (int i = 0; i < nodes; i++) state[i] = newState();
                    empty(from, state[start]);
                    for (var edge : edges) add(edge.label(), state[edge.from()], state[edge.to()]);
                    empty(state[end], to);
                }
            }
        }
    }

    /** Whether a sequence spells a special token: single bytes framed by 0xFF, nothing else. */
    private static boolean isSpecialToken(List<Expr> items) {
        if (items.size() < 3) return false;
        for (Expr e : items) {
            if (!(e instanceof Expr.ByteRange(int lo, int hi)) || lo != hi) return false;
        }
        return ((Expr.ByteRange) items.getFirst()).lo() == 0xFF && ((Expr.ByteRange) items.getLast()).lo() == 0xFF;
    }

    private static byte[] frameBytes(List<Expr> items) {
        byte[] bytes = new byte[items.size()];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) ((Expr.ByteRange) items.get(i)).lo();
        return bytes;
    }

    /** A growable int array. */
    static final class Ints {
        private int[] values = new int[4];
        private int size;

        void add(int v) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = v;
        }

        void set(int i, int v) {
            values[i] = v;
        }

        int[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
