package dev.inferd.engine.grammar;

import dev.inferd.engine.sample.TokenConstraint;

/**
 * A {@link Grammar} as the sampler's {@link TokenConstraint}: only tokens that continue a valid
 * output; end of generation masked until the output is complete, and the only choice once nothing
 * else can follow. A constraint may start inactive (free text) and be switched on mid-generation,
 * as when a tool call's opening marker appears in free output.
 */
public final class GrammarConstraint implements TokenConstraint {
    private final TokenVocabulary vocabulary;
    private final long[] allowed;
    private GrammarMatcher matcher;

    private GrammarConstraint(TokenVocabulary vocabulary, GrammarMatcher matcher) {
        this.vocabulary = vocabulary;
        this.allowed = new long[vocabulary.maskWords()];
        this.matcher = matcher;
    }

    /** Constrains every token of the output. */
    public static GrammarConstraint active(Grammar grammar, TokenVocabulary vocabulary) {
        return new GrammarConstraint(vocabulary, grammar.matcher(vocabulary));
    }

    /** Constrains nothing until {@link #activate}. */
    public static GrammarConstraint inactive(TokenVocabulary vocabulary) {
        return new GrammarConstraint(vocabulary, null);
    }

    /** The factory giving each sequence its own matcher of {@code grammar}. */
    public static Factory factory(Grammar grammar, TokenVocabulary vocabulary) {
        return () -> active(grammar, vocabulary);
    }

    /** From the next token on, the output must follow {@code grammar} from its start. */
    public void activate(Grammar grammar) {
        matcher = grammar.matcher(vocabulary);
    }

    public boolean isActive() {
        return matcher != null;
    }

    @Override
    public void mask(float[] logits) {
        if (matcher == null) return;
        matcher.fillMask(allowed);
        if (TokenMasks.count(allowed, vocabulary.size()) == 0) {
            // No token can continue (the vocabulary cannot spell what the grammar needs): end rather than pick at random.
            long[] end = vocabulary.endOfGenerationBits();
            System.arraycopy(end, 0, allowed, 0, allowed.length);
        }
        TokenMasks.apply(allowed, logits, 0, Math.min(logits.length, vocabulary.size()));
    }

    @Override
    public void accept(int token) {
        if (matcher != null) matcher.accept(token);
    }
}
