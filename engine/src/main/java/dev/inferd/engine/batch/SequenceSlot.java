package dev.inferd.engine.batch;

import java.util.Arrays;

/**
 * One choice of an admitted request and the KV cache sequence it writes. It knows its tokens (prompt
 * plus those fed back) and how many of them the cache holds; the rest are pending and run in the
 * next steps, the last one asking for logits. A paused slot holds no blocks and recomputes its
 * tokens when it resumes.
 */
final class SequenceSlot {
    enum State { WAITING_FOR_FORK, ACTIVE, PAUSED, DONE }

    final RequestState owner;
    final int choice;
    final int sequence;
    /** Admission order of the owner, then choice: smaller is older. Preemption takes the youngest. */
    final long age;
    private int[] tokens;
    private int size;
    /** Positions whose keys and values are in the cache. */
    int computed;
    State state;
    /**
     * Admitted, and holding only what the prefix cache gave it: such a slot may wait for an older
     * prompt that is computing the same prefix, then take that from the cache (see {@code Scheduler}).
     */
    boolean fresh;
    /** Skipped by the last step's plan to wait for an older prompt's prefix: look in the cache again. */
    boolean awaitingPrefix;
    /** Speculation: how many draft tokens to propose this step, and those proposed ({@code draft[0..draftCount)}). */
    int draftWanted;
    int draftCount;
    int[] draft;
    /** Speculation: the draft model ran for this step but proposed nothing (too unsure of its first token). */
    boolean draftDeclined;
    /** Speculation: how long this sequence's drafts are, from how they fared; null when the scheduler does not speculate. */
    DraftLength draftLength;

    SequenceSlot(RequestState owner, int choice, int sequence, long age, State state) {
        this.owner = owner;
        this.choice = choice;
        this.sequence = sequence;
        this.age = age;
        this.state = state;
    }

    void setTokens(int[] source, int count) {
        tokens = Arrays.copyOf(source, Math.max(count + 16, 16));
        size = count;
    }

    void append(int token) {
        if (size == tokens.length) tokens = Arrays.copyOf(tokens, tokens.length * 2);
        tokens[size++] = token;
    }

    int[] tokens() { return tokens; }

    int size() { return size; }

    int pending() { return size - computed; }
}
