package dev.inferd.engine.grammar;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Some tokens' bytes as a trie in preorder, for walking a grammar's automaton once per trie node:
 * each node's byte, depth (the root's children have depth 1), the index just after its subtree,
 * and the tokens ending there ({@code tokenIds[tokenFrom[i]..tokenTo[i])}).
 */
final class TokenTrie {
    private final byte[] label;
    private final int[] depth;
    private final int[] skip;
    private final int[] tokenFrom;
    private final int[] tokenTo;
    private final int[] tokenIds;
    private final int maxDepth;

    /** The trie of {@code tokens} (ids into {@code tokenBytes}, each with at least one byte). */
    TokenTrie(byte[][] tokenBytes, int[] tokens) {
        int[] ids = Arrays.stream(tokens).boxed()
                .sorted(Comparator.comparing(t -> tokenBytes[t], Arrays::compareUnsigned))
                .mapToInt(Integer::intValue).toArray();
        int capacity = 0;
        int longest = 0;
        for (int t : ids) {
            capacity += tokenBytes[t].length;
            longest = Math.max(longest, tokenBytes[t].length);
        }
        byte[] lab = new byte[capacity];
        int[] dep = new int[capacity];
        int[] skp = new int[capacity];
        int[] from = new int[capacity];
        int[] to = new int[capacity];
        int[] open = new int[longest + 1];
        int nodes = 0;
        int openDepth = 0;
        byte[] previous = new byte[0];
        for (int k = 0; k < ids.length; k++) {
            byte[] b = tokenBytes[ids[k]];
            int common = Arrays.mismatch(previous, b);
            if (common < 0) common = b.length;
            for (int d = openDepth; d > common; d--) skp[open[d]] = nodes;
            for (int d = common; d < b.length; d++) {
                lab[nodes] = b[d];
                dep[nodes] = d + 1;
                from[nodes] = k;
                to[nodes] = k;
                open[d + 1] = nodes++;
            }
            openDepth = b.length;
            int node = open[b.length];
            if (to[node] == from[node]) from[node] = k;
            to[node] = k + 1;
            previous = b;
        }
        for (int d = openDepth; d > 0; d--) skp[open[d]] = nodes;
        label = Arrays.copyOf(lab, nodes);
        depth = Arrays.copyOf(dep, nodes);
        skip = Arrays.copyOf(skp, nodes);
        tokenFrom = Arrays.copyOf(from, nodes);
        tokenTo = Arrays.copyOf(to, nodes);
        tokenIds = ids;
        maxDepth = longest;
    }

    int nodes() {
        return label.length;
    }

    /**
     * Calls {@code lengths} with the length of every token that {@code text} starts with from {@code from}
     * (shortest first).
     */
    void prefixTokens(byte[] text, int from, java.util.function.IntConsumer lengths) {
        int node = 0;
        int end = label.length;
        int pos = from;
        while (node < end && pos < text.length) {
            byte b = text[pos];
            while (node < end && label[node] != b) node = skip[node];
            if (node >= end) return;
            if (tokenTo[node] > tokenFrom[node]) lengths.accept(pos - from + 1);
            end = skip[node];
            node++;
            pos++;
        }
    }

    /**
     * Sets the bit of every token whose bytes the automaton takes from {@code start}, skipping each
     * subtree whose prefix it cannot take. Caller holds the automaton's lock.
     *
     * @return the most bytes that complete the output after any one of these tokens (0 when none)
     */
    int walk(LazyDfa dfa, DfaState start, long[] bits) {
        int worst = 0;
        if (!start.canContinue()) return worst;
        var atDepth = new DfaState[maxDepth + 1];
        atDepth[0] = start;
        DfaState dead = dfa.dead;
        int n = label.length;
        int i = 0;
        while (i < n) {
            int d = depth[i];
            DfaState t = dfa.next(atDepth[d - 1], label[i] & 0xFF);
            if (t == dead) {
                i = skip[i];
                continue;
            }
            if (tokenTo[i] > tokenFrom[i]) worst = Math.max(worst, t.bytesToComplete);
            for (int k = tokenFrom[i]; k < tokenTo[i]; k++) {
                int token = tokenIds[k];
                bits[token >>> 6] |= 1L << token;
            }
            if (!t.canContinue()) {
                i = skip[i];
                continue;
            }
            atDepth[d] = t;
            i++;
        }
        return worst;
    }
}
