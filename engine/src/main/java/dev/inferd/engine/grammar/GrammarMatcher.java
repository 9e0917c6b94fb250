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
        if (state.canContinue()) {
            vocabulary.fillTextMask(dfa, state, allowed);
        } else {
            java.util.Arrays.fill(allowed, 0, words, 0L);
        }
        if (state.complete) {
            long[] end = vocabulary.endOfGenerationBits();
            for (int w = 0; w < words; w++) allowed[w] |= end[w];
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
