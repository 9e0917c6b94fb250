package dev.inferd.engine.grammar;

import java.io.ByteArrayOutputStream;

/**
 * The shortest text that completes an output from an automaton state, and how many tokens of a
 * vocabulary spell it. Every state knows its shortest length to completion ({@link DfaState#bytesToComplete},
 * from the network's distances: bytes, a special token counting as one); the text follows, byte by
 * byte, a transition that lowers that length by what the byte counts. Among such bytes digits and letters come first, then the others in byte order, so a string
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
        return bytes(dfa, state, true);
    }

    /**
     * Follows, byte by byte, a transition that lowers the length to completion by what the byte
     * counts: one, or nothing inside a special token's frame (entered at its first 0xFF, left at the
     * second). Without {@code specialTokens} no frame is entered: the least length among the other
     * bytes is followed (the text spelling of a marker, for a vocabulary without its special token).
     */
    static byte[] bytes(LazyDfa dfa, DfaState state, boolean specialTokens) {
        if (state.bytesToComplete >= Nfa.UNREACHABLE) return null;
        var out = new ByteArrayOutputStream(state.bytesToComplete);
        boolean[] tried = new boolean[dfa.nfa.classCount];
        DfaState s = state;
        boolean inFrame = false;
        int steps = 0;
        int limit = 4 * state.bytesToComplete + 64;
        while (!s.complete || inFrame) {
            if (steps++ > limit) return null;
            java.util.Arrays.fill(tried, false);
            DfaState chosen = null;
            int chosenByte = -1;
            int target = inFrame ? s.bytesToComplete : s.bytesToComplete - 1;
            for (int b : PREFERENCE) {
                if (b == 0xFF && !specialTokens) continue;
                int c = dfa.nfa.byteClass[b];
                if (tried[c]) continue;
                tried[c] = true;
                DfaState t = dfa.next(s, b);
                if (t.isDead()) continue;
                if (inFrame) {
                    // A frame is one literal: the byte that stays on it keeps the length.
                    if (t.bytesToComplete == target) {
                        chosen = t;
                        chosenByte = b;
                        break;
                    }
                    continue;
                }
                // The distances assume calls of any depth, and the text spelling of a marker is longer
                // than its frame: the least length found stands in where no byte is exact.
                if (chosen == null || t.bytesToComplete < chosen.bytesToComplete) {
                    chosen = t;
                    chosenByte = b;
                    if (t.bytesToComplete == target) break;
                }
            }
            if (chosen == null || chosen.bytesToComplete >= Nfa.UNREACHABLE) return null;
            out.write(chosenByte);
            if (chosenByte == 0xFF) inFrame = !inFrame;
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
        byte[] text = bytes(dfa, state, true);
        int tokens = text == null ? Nfa.UNREACHABLE : vocabulary.fewestTokens(text);
        if (tokens >= Nfa.UNREACHABLE) {
            // A special token this vocabulary lacks: its text spelling instead.
            byte[] spelled = bytes(dfa, state, false);
            if (spelled != null) tokens = vocabulary.fewestTokens(spelled);
        }
        state.tokensToComplete = tokens;
        state.tokensVocabulary = vocabulary;
        return tokens;
    }
}
