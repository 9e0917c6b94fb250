package dev.inferd.engine.chat.output;

import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.sample.TokenConstraint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bounds a thinking block ({@code <think>...</think>}) to a number of tokens: once the block has taken
 * that many, the tokens of {@code </think>} are forced, one per step, and the output goes on as an
 * answer. The block is recognised where {@link ReasoningSplitter} recognises it: opened by the prompt, or
 * by the output's first non-blank text.
 *
 * <p>The constraint this one wraps either sees every token ({@link #factory}: a tool call's trigger, which
 * stays quiet inside the block and sees the block closed like any other; its mask applies first) or
 * constrains the answer alone ({@link #answerFactory}: a JSON format, which the thinking must not be held
 * to). Not thread-safe: one per sequence.
 */
public final class ThinkingBudget implements TokenConstraint {
    private static final byte[] OPEN = ReasoningSplitter.OPEN.getBytes(StandardCharsets.UTF_8);
    private static final byte[] CLOSE = ReasoningSplitter.CLOSE.getBytes(StandardCharsets.UTF_8);

    private enum State { BEFORE, THINKING, CLOSING, AFTER }

    private final TokenVocabulary vocabulary;
    /** Makes the answer's constraint when it constrains the answer alone; null when it sees every token. */
    private final TokenConstraint.Factory answerOnly;
    /** The wrapped constraint; in answer-only mode null while the block runs, made afresh when the answer starts. */
    private TokenConstraint inner;
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
    /** Tokens the sequence may still take, this one included; {@link Integer#MAX_VALUE}: no limit. */
    private int tokensLeft = Integer.MAX_VALUE;
    /** In answer-only mode, the least tokens a complete answer takes (the block is closed in time for it). */
    private final int answerTokens;

    private ThinkingBudget(TokenVocabulary vocabulary, TokenConstraint inner, TokenConstraint.Factory answerOnly,
                           int answerTokens, int budget, boolean startsInside, int[] openTokens, int[] closeTokens,
                           int[] closing) {
        this.vocabulary = vocabulary;
        this.inner = inner;
        this.answerOnly = answerOnly;
        this.answerTokens = answerTokens;
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
        return factory(budget, vocabulary, startsInside, inner, false);
    }

    /**
     * Each sequence's thinking, free but for {@code budget}, and then an answer under {@code answer}'s constraint:
     * a JSON format held from the answer's first token, as when the output has no thinking. With a block the
     * prompt opened, the answer starts after {@code </think>}. Otherwise the first token is the answer's, or,
     * when {@code budget} is above 0, the {@code <think>} token opening a block (its own token only: a block
     * opened in plain text could not be told from an answer under the constraint). Under a token limit the
     * block is closed at the last step that leaves the answer room to complete. Returns {@code answer} itself
     * when the vocabulary cannot write {@code </think>}.
     *
     * @param budget the most tokens the block may take, {@link Integer#MAX_VALUE} for no budget
     */
    public static TokenConstraint.Factory answerFactory(int budget, TokenVocabulary vocabulary, boolean startsInside,
                                                        TokenConstraint.Factory answer) {
        return factory(budget, vocabulary, startsInside, java.util.Objects.requireNonNull(answer), true);
    }

    private static TokenConstraint.Factory factory(int budget, TokenVocabulary vocabulary, boolean startsInside,
                                                   TokenConstraint.Factory inner, boolean answerOnly) {
        if (budget < 0) throw new IllegalArgumentException("a thinking budget of " + budget + " tokens");
        int[] closeTokens = vocabulary.specialTokens(ReasoningSplitter.CLOSE);
        int[] closing = closeTokens.length > 0 ? new int[] {closeTokens[0]} : vocabulary.spelling(ReasoningSplitter.CLOSE);
        if (closing.length == 0) return inner;
        int[] openTokens = vocabulary.specialTokens(ReasoningSplitter.OPEN);
        int answerTokens = answerOnly ? inner.tokensToComplete() : 0;
        return new TokenConstraint.Factory() {
            @Override
            public TokenConstraint forSequence() {
                // In answer-only mode the answer's constraint is made when the answer may start.
                TokenConstraint first = inner == null || (answerOnly && startsInside) ? null : inner.forSequence();
                return new ThinkingBudget(vocabulary, first, answerOnly ? inner : null, answerTokens, budget,
                        startsInside, openTokens, closeTokens, closing);
            }

            @Override
            public int tokensToComplete() {
                int least = inner == null ? 0 : inner.tokensToComplete();
                // a block the prompt opened must be closed before the answer
                return answerOnly && startsInside && least < Integer.MAX_VALUE - closing.length
                        ? least + closing.length : least;
            }
        };
    }

    @Override
    public void mask(float[] logits) {
        if (answerOnly != null) {
            maskAnswerOnly(logits);
            return;
        }
        if (inner != null) inner.mask(logits);
        closeWhenDue();
        if (state == State.CLOSING) force(logits, closing[closed]);
    }

    private void closeWhenDue() {
        if (state == State.THINKING && (thinkingTokens >= budget || noRoomLeftForTheAnswer())) {
            state = State.CLOSING;
            closed = 0;
        }
    }

    /** In answer-only mode: the answer's constraint (the block closed) must still complete after this step's token. */
    private boolean noRoomLeftForTheAnswer() {
        return answerOnly != null && tokensLeft != Integer.MAX_VALUE
                && (long) tokensLeft - closing.length <= answerTokens;
    }

    private void maskAnswerOnly(float[] logits) {
        switch (state) {
            case BEFORE -> {
                if (budget == 0 || openTokens.length == 0) {
                    inner.mask(logits);
                    return;
                }
                // the answer's first token, or the opening of a block
                float[] kept = new float[openTokens.length];
                for (int i = 0; i < openTokens.length; i++) kept[i] = logits[openTokens[i]];
                inner.mask(logits);
                for (int i = 0; i < openTokens.length; i++) logits[openTokens[i]] = kept[i];
            }
            case THINKING, CLOSING -> {
                closeWhenDue();
                if (state == State.CLOSING) force(logits, closing[closed]);
            }
            case AFTER -> inner.mask(logits);
        }
    }

    /** Only {@code token} may come next; its logit is kept (0 when something had ruled it out). */
    private static void force(float[] logits, int token) {
        float kept = logits[token];
        Arrays.fill(logits, Float.NEGATIVE_INFINITY);
        logits[token] = Float.isFinite(kept) ? kept : 0f;
    }

    @Override
    public void accept(int token) {
        if (tokensLeft != Integer.MAX_VALUE) tokensLeft--;
        if (answerOnly != null) {
            acceptAnswerOnly(token);
            return;
        }
        if (inner != null) inner.accept(token);
        followBlock(token);
    }

    /** Follows the block's opening and closing through {@code token}. */
    private void followBlock(int token) {
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

    private void acceptAnswerOnly(int token) {
        switch (state) {
            case BEFORE -> {
                if (contains(openTokens, token)) {
                    enterBlock();
                    inner = null; // it saw nothing of the block; the answer gets one afresh
                } else {
                    state = State.AFTER;
                    inner.accept(token);
                }
            }
            case THINKING, CLOSING -> {
                followBlock(token);
                if (state == State.AFTER) startAnswer();
            }
            case AFTER -> inner.accept(token);
        }
    }

    /** The answer's constraint from the token after {@code </think>}, within the tokens left. */
    private void startAnswer() {
        inner = answerOnly.forSequence();
        if (tokensLeft != Integer.MAX_VALUE) inner.limit(tokensLeft);
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
        tokensLeft = maxTokens;
        if (inner != null) inner.limit(maxTokens);
    }

    @Override
    public TokenConstraint copy() {
        TokenConstraint innerCopy = null;
        if (inner != null) {
            innerCopy = inner.copy();
            if (innerCopy == null) return null;
        }
        var copy = new ThinkingBudget(vocabulary, innerCopy, answerOnly, answerTokens, budget, false, openTokens,
                closeTokens, closing);
        copy.state = state;
        copy.tokensLeft = tokensLeft;
        copy.thinkingTokens = thinkingTokens;
        copy.closed = closed;
        copy.seen = seen.clone();
        copy.seenLength = seenLength;
        return copy;
    }
}
