package dev.inferd.engine.batch;

import java.util.Arrays;

/**
 * Keys and values of every layer for up to {@code maxSequences} sequences of up to
 * {@code contextLength} positions, in F32. A sequence's storage grows on demand (in blocks of
 * {@value #GROWTH_BLOCK} positions, doubling), so a short request does not reserve a full context.
 *
 * <p>Layout: for a layer and a sequence, one array of {@code capacity * kvLength} floats, position-major
 * ({@code [pos * kvLength + kvHead * headDim + i]}), which keeps one head's history a strided walk.
 * Not thread-safe: the forward pass that owns it is the only writer.
 */
public final class KVCache {
    static final int GROWTH_BLOCK = 64;
    private static final float[] EMPTY = new float[0];

    private final int layers;
    private final int kvLength;
    private final int maxSequences;
    private final int contextLength;
    private final float[][][] keys;   // [sequence][layer] -> capacity * kvLength
    private final float[][][] values;
    private final int[] capacity;     // positions allocated per sequence
    private final int[] length;       // highest written position + 1 per sequence

    public KVCache(int layers, int kvLength, int maxSequences, int contextLength) {
        if (layers <= 0 || kvLength <= 0 || maxSequences <= 0 || contextLength <= 0) {
            throw new IllegalArgumentException("KV cache dimensions must be positive: layers " + layers + ", kvLength "
                    + kvLength + ", maxSequences " + maxSequences + ", contextLength " + contextLength);
        }
        this.layers = layers;
        this.kvLength = kvLength;
        this.maxSequences = maxSequences;
        this.contextLength = contextLength;
        keys = new float[maxSequences][layers][];
        values = new float[maxSequences][layers][];
        for (int s = 0; s < maxSequences; s++) {
            Arrays.fill(keys[s], EMPTY);
            Arrays.fill(values[s], EMPTY);
        }
        capacity = new int[maxSequences];
        length = new int[maxSequences];
    }

    public int layers() { return layers; }

    public int kvLength() { return kvLength; }

    public int maxSequences() { return maxSequences; }

    public int contextLength() { return contextLength; }

    /** Positions {@code 0..length-1} of the sequence hold data (the highest position written, plus one). */
    public int length(int sequence) { return length[checkSequence(sequence)]; }

    /** Positions currently allocated for the sequence. */
    public int capacity(int sequence) { return capacity[checkSequence(sequence)]; }

    /** Keys of one layer and sequence: position {@code p} starts at {@code p * kvLength()}. */
    public float[] keys(int layer, int sequence) { return keys[checkSequence(sequence)][layer]; }

    /** Values of one layer and sequence, laid out like {@link #keys}. */
    public float[] values(int layer, int sequence) { return values[checkSequence(sequence)][layer]; }

    /**
     * Makes room for positions {@code 0..positions-1} of the sequence. Allocates only when it grows.
     */
    public void reserve(int sequence, int positions) {
        checkSequence(sequence);
        if (positions > contextLength) {
            throw new IllegalArgumentException("position " + (positions - 1) + " is beyond the context length "
                    + contextLength);
        }
        if (positions <= capacity[sequence]) return;
        int grown = Math.max(positions, capacity[sequence] * 2);
        grown = Math.min(contextLength, (grown + GROWTH_BLOCK - 1) / GROWTH_BLOCK * GROWTH_BLOCK);
        for (int l = 0; l < layers; l++) {
            keys[sequence][l] = Arrays.copyOf(keys[sequence][l], grown * kvLength);
            values[sequence][l] = Arrays.copyOf(values[sequence][l], grown * kvLength);
        }
        capacity[sequence] = grown;
    }

    /** Records that {@code position} of the sequence now holds data (called by the forward pass). */
    public void markWritten(int sequence, int position) {
        if (position >= length[sequence]) length[sequence] = position + 1;
    }

    /** Forgets a sequence and frees its storage. */
    public void clear(int sequence) {
        checkSequence(sequence);
        Arrays.fill(keys[sequence], EMPTY);
        Arrays.fill(values[sequence], EMPTY);
        capacity[sequence] = 0;
        length[sequence] = 0;
    }

    /** Drops positions {@code from..} of a sequence (keeps its storage), e.g. to rewind after a stop. */
    public void truncate(int sequence, int from) {
        checkSequence(sequence);
        if (from < 0) throw new IllegalArgumentException("negative position " + from);
        length[sequence] = Math.min(length[sequence], from);
    }

    /**
     * Copies positions {@code 0..positions-1} of {@code from} into {@code to} (every layer), so that
     * {@code n > 1} choices share one prefill. {@code to}'s later positions are dropped.
     */
    public void copy(int from, int to, int positions) {
        checkSequence(from);
        checkSequence(to);
        if (positions < 0 || positions > length[from]) {
            throw new IllegalArgumentException("cannot copy " + positions + " positions of sequence " + from
                    + ", which holds " + length[from]);
        }
        if (from == to) return;
        reserve(to, Math.max(positions, 1));
        for (int l = 0; l < layers; l++) {
            System.arraycopy(keys[from][l], 0, keys[to][l], 0, positions * kvLength);
            System.arraycopy(values[from][l], 0, values[to][l], 0, positions * kvLength);
        }
        length[to] = positions;
    }

    private int checkSequence(int sequence) {
        if (sequence < 0 || sequence >= maxSequences) {
            throw new IllegalArgumentException("sequence " + sequence + " is outside 0.." + (maxSequences - 1));
        }
        return sequence;
    }
}
