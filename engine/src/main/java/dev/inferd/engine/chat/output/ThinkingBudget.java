package dev.inferd.engine.chat.output;

import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.sample.TokenConstraint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bounds a thinking block ({@code <think>...</think>}) to a number of tokens: once the block has taken
 * that many, the tokens of {@code </think>} are forced, one per step, and the output goes on as an
 * answer. The block is recognised where {@link ReasoningSplitter} recognises it: opened by the prompt, or
 * by the output's first non-blank text. Every token also goes to the constraint this one wraps (a tool
 * call's trigger, which stays quiet inside the block and sees the block closed like any other), and that
 * constraint's mask applies first. Not thread-safe: one per sequence.
 */
public final class ThinkingBudget implements TokenConstraint {
    private static final byte[] OPEN = ReasoningSplitter.OPEN.getBytes(StandardCharsets.UTF_8);
    private static final byte[] CLOSE = ReasoningSplitter.CLOSE.getBytes(StandardCharsets.UTF_8);

    private enum State { BEFORE, THINKING, CLOSING, AFTER }

    private final TokenVocabulary vocabulary;
    private final TokenConstraint inner;
    private final int budget;
    private final int[] openTokens;
    private final int[] closeTokens;
    /** The tokens written to close the block. */
    private final int[] closing;
    private State state;
    /** Tokens the block has taken so far. */
    private int thinkingTokens;
    /** How many of {@link #closing} have been written. */
    private int closed;
    /** BEFORE: the output's non-blank bytes so far. THINKING: its last bytes, enough to hold {@code </think>} but one byte. */
    private byte[] seen = new byte[16];
    private int seenLength;

    private ThinkingBudget(TokenVocabulary vocabulary, TokenConstraint inner, int budget, boolean startsInside,
                           int[] openTokens, int[] closeTokens, int[] closing) {
        this.vocabulary = vocabulary;
        this.inner = inner;
        this.budget = budget;
        this.openTokens = openTokens;
        this.closeTokens = closeTokens;
        this.closing = closing;
        this.state = startsInside ? State.THINKING : State.BEFORE;
    }

    /**
     * Each sequence's budget over {@code inner}'s constraint (null for none). Returns {@code inner} itself when
     * the vocabulary cannot write {@code </think>}: the budget cannot be kept then.
     *
     * @param budget       the most tokens the block may take before it is closed
     * @param startsInside the prompt opened the block
     */
    public static TokenConstraint.Factory factory(int budget, TokenVocabulary vocabulary, boolean startsInside,
                                                  TokenConstraint.Factory inner) {
        if (budget < 0) throw new IllegalArgumentException("a thinking budget of " + budget + " tokens");
        int[] closeTokens = vocabulary.specialTokens(ReasoningSplitter.CLOSE);
        int[] closing = closeTokens.length > 0 ? new int[] {closeTokens[0]} : vocabulary.spelling(ReasoningSplitter.CLOSE);
        if (closing.length == 0) return inner;
        int[] openTokens = vocabulary.specialTokens(ReasoningSplitter.OPEN);
        return new TokenConstraint.Factory() {
            @Override
            public TokenConstraint forSequence() {
                return new ThinkingBudget(vocabulary, inner == null ? null : inner.forSequence(), budget, startsInside,
                        openTokens, closeTokens, closing);
            }

            @Override
            public int tokensToComplete() {
                return inner == null ? 0 : inner.tokensToComplete();
            }
        };
    }

    @Override
    public void mask(float[] logits) {
        if (inner != null) inner.mask(logits);
        if (state == State.THINKING && thinkingTokens >= budget) {
            state = State.CLOSING;
            closed = 0;
        }
        if (state == State.CLOSING) force(logits, closing[closed]);
    }

    /** Only {@code token} may come next; its logit is kept (0 when something had ruled it out). */
    private static void force(float[] logits, int token) {
        float kept = logits[token];
        Arrays.fill(logits, Float.NEGATIVE_INFINITY);
        logits[token] = Float.isFinite(kept) ? kept : 0f;
    }

    @Override
    public void accept(int token) {
        if (inner != null) inner.accept(token);
        switch (state) {
            case BEFORE -> before(token);
            case THINKING -> {
                thinkingTokens++;
                if (closes(token)) state = State.AFTER;
            }
            case CLOSING -> {
                if (++closed == closing.length) state = State.AFTER;
            }
            case AFTER -> {
            }
        }
    }

    /** Whether the output's first non-blank text opens the block; anything else means it has none. */
    private void before(int token) {
        if (contains(openTokens, token)) {
            enterBlock();
            return;
        }
        byte[] bytes = vocabulary.bytes(token);
        if (bytes == null || TokenVocabulary.specialTokenText(bytes) != null) {
            state = State.AFTER;
            return;
        }
        for (int i = 0; i < bytes.length; i++) {
            byte b = bytes[i];
            if (seenLength == 0 && (b == ' ' || b == '\n' || b == '\t' || b == '\r')) continue;
            if (seenLength == OPEN.length || b != OPEN[seenLength]) {
                state = State.AFTER;
                return;
            }
            seen[seenLength++] = b;
            if (seenLength == OPEN.length) {
                enterBlock();
                // the rest of this token is thinking already
                for (int j = i + 1; j < bytes.length; j++) append(bytes[j]);
                return;
            }
        }
    }

    private void enterBlock() {
        state = State.THINKING;
        seenLength = 0;
    }

    /** Whether {@code token} ends the block: {@code </think>} as a token, or as the end of the text so far. */
    private boolean closes(int token) {
        if (contains(closeTokens, token)) return true;
        byte[] bytes = vocabulary.bytes(token);
        if (bytes == null || TokenVocabulary.specialTokenText(bytes) != null) {
            seenLength = 0; // a special token is no text: the closing tag cannot run across it
            return false;
        }
        for (byte b : bytes) {
            if (append(b)) return true;
        }
        return false;
    }

    /** Takes one byte of thinking text; true when it completes {@code </think>}. */
    private boolean append(byte b) {
        if (seenLength == seen.length) {
            System.arraycopy(seen, 1, seen, 0, seenLength - 1);
            seenLength--;
        }
        seen[seenLength++] = b;
        return seenLength >= CLOSE.length
                && Arrays.equals(seen, seenLength - CLOSE.length, seenLength, CLOSE, 0, CLOSE.length);
    }

    private static boolean contains(int[] tokens, int token) {
        for (int t : tokens) {
            if (t == token) return true;
        }
        return false;
    }

    @Override
    public void limit(int maxTokens) {
        if (inner != null) inner.limit(maxTokens);
    }

    @Override
    public TokenConstraint copy() {
        TokenConstraint innerCopy = null;
        if (inner != null) {
            innerCopy = inner.copy();
            if (innerCopy == null) return null;
        }
        var copy = new ThinkingBudget(vocabulary, innerCopy, budget, false, openTokens, closeTokens, closing);
        copy.state = state;
        copy.thinkingTokens = thinkingTokens;
        copy.closed = closed;
        copy.seen = seen.clone();
        copy.seenLength = seenLength;
        return copy;
    }
}
