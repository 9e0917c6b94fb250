package dev.inferd.engine.grammar;

import java.io.ByteArrayOutputStream;

/**
 * The shortest text that completes an output from an automaton state, and how many tokens of a
 * vocabulary spell it. Every state knows its fewest bytes to completion ({@link DfaState#bytesToComplete},
 * from the network's distances); the text follows, byte by byte, a transition that lowers that count
 * by one. Among such bytes digits and letters come first, then the others in byte order, so a string
 * with a minimum length is filled with {@code 0}s and a number is {@code 0} or its bound.
 *
 * <p>The token count is the fewest tokens that spell that one text. It bounds from above what the
 * output needs (another text of more bytes may take fewer tokens); a sequence steered onto it always
 * fits, since the rest of the text from each state on is the rest of the same text.
 */
final class ShortestCompletion {
    /** Bytes in the order they are tried: digits, lower and upper case letters, then the rest. */
    private static final int[] PREFERENCE = preference();

    private ShortestCompletion() {
    }

    private static int[] preference() {
        int[] order = new int[256];
        int k = 0;
        for (int b = '0'; b <= '9'; b++) order[k++] = b;
        for (int b = 'a'; b <= 'z'; b++) order[k++] = b;
        for (int b = 'A'; b <= 'Z'; b++) order[k++] = b;
        for (int b = 0; b < 256; b++) {
            boolean alnum = (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
            if (!alnum) order[k++] = b;
        }
        return order;
    }

    /** The shortest completion's bytes, or null when the output cannot be completed; caller holds the lock. */
    static byte[] bytes(LazyDfa dfa, DfaState state) {
        if (state.bytesToComplete >= Nfa.UNREACHABLE) return null;
        var out = new ByteArrayOutputStream(state.bytesToComplete);
        boolean[] tried = new boolean[dfa.nfa.classCount];
        DfaState s = state;
        int steps = 0;
        int limit = 2 * state.bytesToComplete + 16;
        while (!s.complete) {
            if (steps++ > limit) return null;
            java.util.Arrays.fill(tried, false);
            DfaState chosen = null;
            int chosenByte = -1;
            for (int b : PREFERENCE) {
                int c = dfa.nfa.byteClass[b];
                if (tried[c]) continue;
                tried[c] = true;
                DfaState t = dfa.next(s, b);
                if (t.isDead()) continue;
                // The distances assume calls of any depth; a state near the depth bound may miss the
                // exact step, so the least one found stands in for it.
                if (chosen == null || t.bytesToComplete < chosen.bytesToComplete) {
                    chosen = t;
                    chosenByte = b;
                    if (t.bytesToComplete == s.bytesToComplete - 1) break;
                }
            }
            if (chosen == null || chosen.bytesToComplete >= Nfa.UNREACHABLE) return null;
            out.write(chosenByte);
            s = chosen;
        }
        return out.toByteArray();
    }

    /**
     * The fewest tokens of {@code vocabulary} that spell the shortest completion from {@code state}
     * (0 when complete), or {@link Nfa#UNREACHABLE}; cached on the state. Caller holds the lock.
     */
    static int tokens(LazyDfa dfa, DfaState state, TokenVocabulary vocabulary) {
        if (state.complete) return 0;
        if (state.tokensVocabulary == vocabulary) return state.tokensToComplete;
        byte[] text = bytes(dfa, state);
        int tokens = text == null ? Nfa.UNREACHABLE : vocabulary.fewestTokens(text);
        state.tokensToComplete = tokens;
        state.tokensVocabulary = vocabulary;
        return tokens;
    }
}
