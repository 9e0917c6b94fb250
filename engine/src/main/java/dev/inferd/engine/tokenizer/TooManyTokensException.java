package dev.inferd.engine.tokenizer;

/** A text that has more tokens than the caller's limit; thrown before all of it is tokenized. */
public final class TooManyTokensException extends RuntimeException {

    private final int atLeast;
    private final boolean exact;

    /** A text tokenized whole: it has exactly {@code count} tokens. */
    public TooManyTokensException(int count, int limit) {
        this(count, limit, true);
    }

    /** @param exact false when the text was refused on its length, {@code atLeast} then a lower bound */
    public TooManyTokensException(int atLeast, int limit, boolean exact) {
        super("the text has " + (exact ? "" : "at least ") + atLeast + " tokens, more than the limit of " + limit,
                null, false, false);
        this.atLeast = atLeast;
        this.exact = exact;
    }

    /** Whether {@link #atLeast()} is the text's exact token count. */
    public boolean exact() {
        return exact;
    }

    /** A lower bound of the text's token count, above the limit. */
    public int atLeast() {
        return atLeast;
    }
}
