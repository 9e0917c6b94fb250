package dev.inferd.engine.grammar;

/**
 * A set of positions in the grammar (state of the network plus its stack of return states), reached
 * after some bytes: the determinized state that a {@link GrammarMatcher} holds. Its transitions are
 * filled in as they are first taken, under the {@link LazyDfa}'s lock.
 */
final class DfaState {
    /** {@code nfaState, stackId} pairs, sorted: the positions that can still take a byte. */
    final int[] positions;
    /** The whole grammar has been matched here: end of generation is allowed. */
    final boolean complete;
    /** Per byte class; null where not computed yet. */
    final DfaState[] next;
    /**
     * The shortest length of text that completes the output from here, in bytes with a special token's
     * frame counted as one ({@link Nfa#byteEdgeCosts}); {@link Nfa#UNREACHABLE}: none does.
     */
    final int bytesToComplete;
    /** {@link #tokensToComplete} as computed for {@link #tokensVocabulary}; -1 until then. */
    int tokensToComplete = -1;
    TokenVocabulary tokensVocabulary;

    DfaState(int[] positions, boolean complete, int classCount, int bytesToComplete) {
        this.positions = positions;
        this.complete = complete;
        this.next = new DfaState[classCount];
        this.bytesToComplete = complete ? 0 : bytesToComplete;
    }

    /** Some byte can follow. */
    boolean canContinue() {
        return positions.length > 0;
    }

    /** No byte can follow and the grammar is not complete: a prefix that no valid output has. */
    boolean isDead() {
        return positions.length == 0 && !complete;
    }
}
