package dev.inferd.engine.model;

/**
 * The input of one forward pass: entries of (sequence, position, token, wants logits) in any mix, for
 * example a prefill chunk of one sequence next to single decode tokens of others. Entries of the
 * same sequence are attended causally: an entry at position {@code p} sees positions {@code 0..p} of
 * its sequence, whether they were written by an earlier pass or by an entry of this batch.
 *
 * <p>Each entry is a prompt token or a generated one, by its position in its sequence, not by when it
 * runs: the model multiplies the two kinds with different kernels (see
 * {@link dev.inferd.engine.tensor.WeightMatrix#multiply(float[], int, float[], int)}), and a token
 * recomputed after its sequence was paused must take the same one again.
 *
 * <p>Reusable: {@link #clear()} and fill again; adding allocates nothing. The {@code i}-th entry that
 * wants logits gets logits row {@code i} (see {@link #logitsRow}).
 */
public final class Batch {
    private final int[] sequences;
    private final int[] positions;
    private final int[] tokens;
    private final int[] logitsRows;
    private final boolean[] promptTokens;
    private int size;
    private int logitsCount;
    private int promptCount;

    public Batch(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("batch capacity must be positive, was " + capacity);
        sequences = new int[capacity];
        positions = new int[capacity];
        tokens = new int[capacity];
        logitsRows = new int[capacity];
        promptTokens = new boolean[capacity];
    }

    /** Builds a batch of one sequence's consecutive tokens from {@code startPosition}, logits for the last one. */
    public static Batch ofPrompt(int sequence, int startPosition, int[] tokens) {
        var b = new Batch(Math.max(1, tokens.length));
        for (int i = 0; i < tokens.length; i++) b.add(sequence, startPosition + i, tokens[i], i == tokens.length - 1, true);
        return b;
    }

    /**
     * Appends a generated token.
     *
     * @return its logits row, or -1 when it wants none
     */
    public int add(int sequence, int position, int token, boolean wantsLogits) {
        return add(sequence, position, token, wantsLogits, false);
    }

    /**
     * Appends an entry: a prompt token when {@code promptToken}, else a generated one.
     *
     * @return its logits row, or -1 when it wants none
     */
    public int add(int sequence, int position, int token, boolean wantsLogits, boolean promptToken) {
        if (size == sequences.length) throw new IllegalStateException("batch is full (" + size + " entries)");
        if (sequence < 0) throw new IllegalArgumentException("negative sequence id " + sequence);
        if (position < 0) throw new IllegalArgumentException("negative position " + position);
        if (token < 0) throw new IllegalArgumentException("negative token id " + token);
        sequences[size] = sequence;
        positions[size] = position;
        tokens[size] = token;
        int row = wantsLogits ? logitsCount++ : -1;
        logitsRows[size] = row;
        promptTokens[size] = promptToken;
        if (promptToken) promptCount++;
        size++;
        return row;
    }

    public void clear() {
        size = 0;
        logitsCount = 0;
        promptCount = 0;
    }

    public int size() { return size; }

    public boolean isEmpty() { return size == 0; }

    public int capacity() { return sequences.length; }

    public int sequence(int entry) { return sequences[check(entry)]; }

    public int position(int entry) { return positions[check(entry)]; }

    public int token(int entry) { return tokens[check(entry)]; }

    public boolean wantsLogits(int entry) { return logitsRows[check(entry)] >= 0; }

    /** The logits row of an entry, or -1 when it wants none. */
    public int logitsRow(int entry) { return logitsRows[check(entry)]; }

    public boolean isPromptToken(int entry) { return promptTokens[check(entry)]; }

    /** How many entries are prompt tokens. */
    public int promptCount() { return promptCount; }

    /** How many entries want logits. */
    public int logitsCount() { return logitsCount; }

    private int check(int entry) {
        if (entry < 0 || entry >= size) throw new IndexOutOfBoundsException("entry " + entry + " of " + size);
        return entry;
    }
}
