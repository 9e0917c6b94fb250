package dev.inferd.engine.grammar;

/**
 * Where one sequence stands in a {@link Grammar}: which tokens may come next, and the state after
 * each accepted token. One per sequence, used by one thread at a time; cheap to create.
 *
 * <p>At each step the scheduler calls {@link #fillMask} (allowed tokens as bits), applies it to the
 * logits, samples, and calls {@link #accept} with the chosen token. End-of-generation tokens are
 * allowed only when the output is complete, and are the only tokens allowed once nothing else can
 * follow.
 */
public final class GrammarMatcher {
    private final Grammar grammar;
    private final TokenVocabulary vocabulary;
    private final LazyDfa dfa;
    private DfaState state;
    private boolean ended;
    /** The state {@link #fillMask} last filled a mask for, and the most bytes completing the output after its tokens. */
    private DfaState maskedState;
    private int maskedWorstBytes;

    GrammarMatcher(Grammar grammar, TokenVocabulary vocabulary, DfaState start) {
        this.grammar = grammar;
        this.vocabulary = vocabulary;
        this.dfa = grammar.dfa();
        this.state = start;
    }

    public Grammar grammar() {
        return grammar;
    }

    public TokenVocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Sets bit {@code t} of {@code allowed} (word {@code t >>> 6}, bit {@code t & 63}) for every token
     * that may come next, and clears the others. {@code allowed} has at least
     * {@link TokenVocabulary#maskWords()} longs. All clear after an end-of-generation token, or when the
     * grammar cannot be completed with this vocabulary.
     */
    public void fillMask(long[] allowed) {
        int words = vocabulary.maskWords();
        if (allowed.length < words) {
            throw new IllegalArgumentException("a mask for " + vocabulary.size() + " tokens needs " + words + " longs");
        }
        if (ended) {
            java.util.Arrays.fill(allowed, 0, words, 0L);
            return;
        }
        int worst = 0;
        if (state.canContinue()) {
            worst = vocabulary.fillTextMask(dfa, state, allowed);
        } else {
            java.util.Arrays.fill(allowed, 0, words, 0L);
        }
        maskedState = state;
        maskedWorstBytes = worst;
        if (state.complete) {
            long[] end = vocabulary.endOfGenerationBits();
            for (int w = 0; w < words; w++) allowed[w] |= end[w];
        }
    }

    /**
     * Narrows a mask that {@link #fillMask} just filled to the tokens after which the output can still
     * be completed within {@code tokensLeft - 1} more tokens (by {@link #tokensToComplete}), so that a
     * sequence with {@code tokensLeft} tokens to go, this one included, ends complete. Where no token
     * keeps within the budget (the output did not fit from the start), the one that needs the fewest
     * stays. Costs nothing while every allowed token leaves more room than its completion can need.
     */
    public void restrictToBudget(long[] allowed, int tokensLeft) {
        if (ended) return;
        int after = tokensLeft - 1;
        boolean bytesBoundTokens = lengthBoundsTokens();
        if (bytesBoundTokens && maskedState == state && maskedWorstBytes <= after) return;
        int words = vocabulary.maskWords();
        synchronized (dfa.lock) {
            boolean plainLoop = TokenVocabulary.loopsOnPlainBytes(dfa, state);
            int stay = plainLoop ? ShortestCompletion.tokens(dfa, state, vocabulary) : Nfa.UNREACHABLE;
            int best = -1;
            int bestCost = Integer.MAX_VALUE;
            boolean kept = false;
            for (int w = 0; w < words; w++) {
                long bits = allowed[w];
                while (bits != 0) {
                    int t = (w << 6) + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    if (vocabulary.isEndOfGeneration(t)) {
                        kept = true;
                        continue;
                    }
                    int cost;
                    if (plainLoop && vocabulary.isPlainToken(t)) {
                        cost = stay;
                    } else {
                        DfaState next = advance(t);
                        if (next.isDead()) {
                            cost = Nfa.UNREACHABLE;
                        } else if (bytesBoundTokens && next.bytesToComplete <= after) {
                            cost = next.bytesToComplete; // no more tokens than bytes: fits, whatever the exact count
                        } else {
                            cost = ShortestCompletion.tokens(dfa, next, vocabulary);
                        }
                    }
                    if (cost <= after) {
                        kept = true;
                    } else {
                        allowed[w] &= ~(1L << t);
                        if (cost < bestCost) {
                            bestCost = cost;
                            best = t;
                        }
                    }
                }
            }
            if (!kept && best >= 0) allowed[best >>> 6] |= 1L << best;
        }
    }

    /** -1 until known: whether no completion takes more tokens than its length (see {@link #restrictToBudget}). */
    private int lengthBoundsTokens = -1;

    /**
     * Whether every completion's token count is at most its length: every byte but 0xFF is a token of
     * its own, and every special token the grammar names is one here.
     */
    private boolean lengthBoundsTokens() {
        if (lengthBoundsTokens < 0) {
            boolean bound = vocabulary.spellsEveryByte();
            for (byte[] framed : dfa.nfa.specialTokens) {
                bound &= vocabulary.specialTokens(TokenVocabulary.specialTokenText(framed)).length > 0;
            }
            lengthBoundsTokens = bound ? 1 : 0;
        }
        return lengthBoundsTokens == 1;
    }

    /**
     * The tokens the shortest completion of the output from here takes (0 when complete), an upper
     * bound of what the output still needs; {@link Integer#MAX_VALUE} when it cannot be completed.
     */
    public int tokensToComplete() {
        if (ended) return 0;
        synchronized (dfa.lock) {
            int tokens = ShortestCompletion.tokens(dfa, state, vocabulary);
            return tokens >= Nfa.UNREACHABLE ? Integer.MAX_VALUE : tokens;
        }
    }

    /** The shortest text that completes the output from here (empty when complete), or null when none does. */
    public byte[] shortestCompletion() {
        if (ended) return new byte[0];
        synchronized (dfa.lock) {
            return ShortestCompletion.bytes(dfa, state);
        }
    }

    /** Whether {@code token} may come next. */
    public boolean isAllowed(int token) {
        if (ended) return false;
        if (vocabulary.isEndOfGeneration(token)) return state.complete;
        return !advance(token).isDead();
    }

    /**
     * Moves past {@code token} if it is allowed and returns true; otherwise changes nothing and
     * returns false. An end-of-generation token ends the matcher.
     */
    public boolean accept(int token) {
        if (ended) return false;
        if (vocabulary.isEndOfGeneration(token)) {
            if (!state.complete) return false;
            ended = true;
            return true;
        }
        DfaState next = advance(token);
        if (next.isDead()) return false;
        state = next;
        return true;
    }

    /** Moves past text that is not a token choice of the model (a forced prefix); false if it does not fit. */
    public boolean acceptBytes(byte[] bytes) {
        if (ended) return false;
        DfaState next = walk(bytes);
        if (next.isDead()) return false;
        state = next;
        return true;
    }

    /** A matcher standing where this one stands, advancing on its own (DFA states are shared and immutable). */
    public GrammarMatcher copy() {
        var copy = new GrammarMatcher(grammar, vocabulary, state);
        copy.ended = ended;
        return copy;
    }

    /** The output so far is a complete match: end of generation is allowed. */
    public boolean isComplete() {
        return !ended && state.complete;
    }

    /** Some non-empty text can still follow (false once complete with nothing more allowed). */
    public boolean canContinue() {
        return !ended && state.canContinue();
    }

    /** An end-of-generation token was accepted. */
    public boolean isEnded() {
        return ended;
    }

    private DfaState advance(int token) {
        byte[] bytes = vocabulary.bytes(token);
        if (bytes == null || bytes.length == 0) return dfa.dead;
        return walk(bytes);
    }

    private DfaState walk(byte[] bytes) {
        synchronized (dfa.lock) {
            DfaState s = state;
            for (byte b : bytes) {
                s = dfa.next(s, b & 0xFF);
                if (s.isDead()) return dfa.dead;
            }
            return s;
        }
    }
}
