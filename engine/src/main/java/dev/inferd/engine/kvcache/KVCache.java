package dev.inferd.engine.kvcache;

/**
 * Keys and values of every layer in fixed-size blocks of {@link #blockSize()} positions, drawn from a
 * pool of {@link #totalBlocks()} blocks shared by up to {@code maxSequences} sequences of up to
 * {@code contextLength} positions. Each sequence has a block table (its logical blocks to pool
 * blocks), so memory follows the tokens actually held, not the context length.
 *
 * <p>Whole blocks are shared, never copied up front: {@link #copy} gives another sequence the same
 * blocks (n choices of one prompt), and {@link #attachCachedPrefix} gives a new sequence the blocks an
 * earlier sequence wrote for the same tokens (the prefix cache, see {@link BlockPool}); only the first
 * positions of a cached block that its prompt goes on into are copied, into a block of its own. A
 * write into a block that someone else also holds first copies it (copy-on-write). Writes go through
 * {@link #ensureWritable} / {@link #prepareWrite}; only those allocate.
 *
 * <p>Storage: halves (F16, as llama.cpp's and Ollama's caches hold them by default, and at the precision
 * attention reads them: see {@code Attention}), in slabs of {@value #SLAB_BLOCKS} pool blocks per layer for the
 * keys and for the values, each allocated the first time one of its blocks is used. A slab is head-major: a
 * key-value head's part of its blocks comes first for block 0, then block 1 and so on
 * ({@code [((kvHead * slabBlocks + block % SLAB_BLOCKS) * blockSize + slot) * headDim + i]}). Halves take half
 * the memory of floats, so a memory budget holds twice the tokens, and a token deep in a context reads half the
 * bytes; head-major slabs let a task that attends with one key-value head read a sequence's blocks, which the
 * pool hands out in order, as long runs that the hardware's prefetcher follows: with a block's heads side by
 * side, a token 4096 positions deep spent a fifth of its time reading the cache in 2 KB pieces 16 KB apart, at
 * about a third of the machine's bandwidth. Readers get floats ({@link #readKeys}, {@link #readValues}).
 *
 * <p>Not thread-safe: one thread (the scheduler, or the forward pass's caller) owns it; during a forward pass its
 * workers read it and {@link #store} positions that no other worker reads.
 */
public final class KVCache {
    public static final int DEFAULT_BLOCK_SIZE = 16;
    /** Pool blocks per slab: 1,024 positions at the default block size. */
    static final int SLAB_BLOCKS = 64;

    private final int layers;
    private final int kvHeads;
    private final int headDim;
    private final int kvLength;
    private final int maxSequences;
    private final int contextLength;
    private final int blockSize;
    private final int totalBlocks;
    private final short[][][] keys;   // [layer][slab] -> slabBlocks * blockSize * kvLength halves, null until first used
    private final short[][][] values;
    private final BlockPool pool;
    private final int[][] tables;     // [sequence][logical block] -> pool block
    private final long[][] chain;     // [sequence][logical block] -> prefix hash up to that block (committed ones)
    private final int[] blockCounts;
    private final int[] lengths;      // highest written position + 1
    private final int[] committed;    // leading blocks registered in (or checked against) the prefix cache

    /** A cache with enough blocks for every sequence to fill the context (storage still grows on demand). */
    public KVCache(int layers, int kvHeads, int headDim, int maxSequences, int contextLength) {
        this(layers, kvHeads, headDim, maxSequences, contextLength, DEFAULT_BLOCK_SIZE,
                maxSequences * Math.ceilDiv(Math.max(contextLength, 1), DEFAULT_BLOCK_SIZE));
    }

    public KVCache(int layers, int kvHeads, int headDim, int maxSequences, int contextLength, int blockSize, int totalBlocks) {
        if (layers <= 0 || kvHeads <= 0 || headDim <= 0 || maxSequences <= 0 || contextLength <= 0 || blockSize <= 0
                || totalBlocks <= 0) {
            throw new IllegalArgumentException("KV cache dimensions must be positive: layers " + layers + ", kvHeads "
                    + kvHeads + ", headDim " + headDim + ", maxSequences " + maxSequences + ", contextLength "
                    + contextLength + ", blockSize " + blockSize + ", blocks " + totalBlocks);
        }
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.headDim = headDim;
        this.kvLength = kvHeads * headDim;
        this.maxSequences = maxSequences;
        this.contextLength = contextLength;
        this.blockSize = blockSize;
        this.totalBlocks = totalBlocks;
        keys = new short[layers][Math.ceilDiv(totalBlocks, SLAB_BLOCKS)][];
        values = new short[layers][Math.ceilDiv(totalBlocks, SLAB_BLOCKS)][];
        pool = new BlockPool(totalBlocks);
        int perSequence = Math.ceilDiv(contextLength, blockSize);
        tables = new int[maxSequences][perSequence];
        chain = new long[maxSequences][perSequence];
        blockCounts = new int[maxSequences];
        lengths = new int[maxSequences];
        committed = new int[maxSequences];
    }

    /** Bytes one block takes once allocated (keys and values of every layer, F16). */
    public static long bytesPerBlock(int layers, int kvLength, int blockSize) {
        return 2L * Short.BYTES * layers * kvLength * blockSize;
    }

    public int layers() { return layers; }

    public int kvLength() { return kvLength; }

    public int kvHeads() { return kvHeads; }

    public int headDim() { return headDim; }

    public int maxSequences() { return maxSequences; }

    public int contextLength() { return contextLength; }

    public int blockSize() { return blockSize; }

    public int totalBlocks() { return pool.total(); }

    /** Blocks held by some sequence. */
    public int usedBlocks() { return pool.used(); }

    /** Blocks no sequence holds that keep a cached prefix for later requests. */
    public int cachedBlocks() { return pool.cached(); }

    /** Blocks an allocation can still get (free ones, then cached ones, least recently used first). */
    public int availableBlocks() { return pool.available(); }

    /** Blocks needed to hold {@code positions} positions. */
    public int blocksFor(int positions) { return Math.ceilDiv(positions, blockSize); }

    /** Positions {@code 0..length-1} of the sequence hold data (the highest position written, plus one). */
    public int length(int sequence) { return lengths[checkSequence(sequence)]; }

    /** Blocks the sequence holds. */
    public int blockCount(int sequence) { return blockCounts[checkSequence(sequence)]; }

    /** Positions the sequence's blocks can hold. */
    public int capacity(int sequence) { return blockCount(sequence) * blockSize; }

    /**
     * The sequence's block table: logical block {@code i} (positions {@code i * blockSize()} onwards) is
     * pool block {@code table[i]}, for {@code i < blockCount(sequence)}. The cache's own array: read only.
     */
    public int[] blockTable(int sequence) { return tables[checkSequence(sequence)]; }

    /**
     * Stores the keys {@code k[kOff .. kOff + kvLength)} and values {@code v[vOff ..]} of one position of one layer at
     * {@code cell} (from {@link #prepareWrite}), rounded to halves (to nearest, ties to even). Positions other workers
     * read are not touched, so the forward pass's workers may store their rows' positions side by side.
     */
    public void store(int layer, int cell, float[] k, int kOff, float[] v, int vOff) {
        int block = cell / blockSize, slot = cell % blockSize;
        short[] keyHalves = keys[layer][block / SLAB_BLOCKS], valueHalves = values[layer][block / SLAB_BLOCKS];
        for (int h = 0; h < kvHeads; h++) {
            int at = headAt(block, h) + slot * headDim;
            toHalves(k, kOff + h * headDim, keyHalves, at, headDim);
            toHalves(v, vOff + h * headDim, valueHalves, at, headDim);
        }
    }

    /** Where a key-value head's part of a pool block starts in its slab. */
    private int headAt(int block, int kvHead) {
        int slab = block / SLAB_BLOCKS;
        int slabBlocks = Math.min(SLAB_BLOCKS, totalBlocks - slab * SLAB_BLOCKS);
        return (kvHead * slabBlocks + block % SLAB_BLOCKS) * blockSize * headDim;
    }

    /** Key-value head {@code kvHead}'s keys at the first {@code positions} slots of a pool block, into {@code out[slot * headDim() + i]}. */
    public void readKeys(int layer, int block, int kvHead, int positions, float[] out) {
        toFloats(keys[layer][block / SLAB_BLOCKS], headAt(block, kvHead), out, positions * headDim);
    }

    /** As {@link #readKeys}, for the values. */
    public void readValues(int layer, int block, int kvHead, int positions, float[] out) {
        toFloats(values[layer][block / SLAB_BLOCKS], headAt(block, kvHead), out, positions * headDim);
    }

    /** Plain loops that C2 turns into the machine's conversions ({@code vcvtps2ph}, {@code vcvtph2ps}), 16 a time. */
    private static void toHalves(float[] src, int from, short[] dst, int at, int count) {
        for (int i = 0; i < count; i++) dst[at + i] = Float.floatToFloat16(src[from + i]);
    }

    private static void toFloats(short[] src, int from, float[] dst, int count) {
        for (int i = 0; i < count; i++) dst[i] = Float.float16ToFloat(src[from + i]);
    }

    /**
     * Makes positions {@code from..to-1} of the sequence writable: allocates the blocks it lacks and
     * gives it its own copy of any block in that range that another sequence or the prefix cache also
     * holds.
     *
     * @return false when the pool ran out of blocks (what was allocated so far stays with the sequence)
     */
    public boolean ensureWritable(int sequence, int from, int to) {
        checkSequence(sequence);
        if (from < 0 || from >= to) throw new IllegalArgumentException("empty or negative range " + from + ".." + to);
        if (to > contextLength) {
            throw new IllegalArgumentException("position " + (to - 1) + " is beyond the context length " + contextLength);
        }
        int[] table = tables[sequence];
        int last = (to - 1) / blockSize;
        for (int b = from / blockSize; b <= last; b++) {
            while (blockCounts[sequence] <= b) {
                int fresh = allocate();
                if (fresh < 0) return false;
                table[blockCounts[sequence]++] = fresh;
            }
            int block = table[b];
            if (pool.refCount(block) > 1) {
                int own = allocate();
                if (own < 0) return false;
                copyPositions(block, own, blockSize);
                pool.release(block);
                table[b] = own;
            } else if (pool.isRegistered(block)) {
                pool.unregister(block); // about to be overwritten (after a truncate): no longer that prefix
            }
            if (committed[sequence] > b) committed[sequence] = b;
        }
        return true;
    }

    /**
     * Where the forward pass writes (sequence, position): {@code block * blockSize() + slot}. Allocates
     * as {@link #ensureWritable} does.
     *
     * @throws IllegalStateException when the pool has no block left
     */
    public int prepareWrite(int sequence, int position) {
        if (!ensureWritable(sequence, position, position + 1)) {
            throw new IllegalStateException("the KV cache's " + pool.total() + " blocks are all in use");
        }
        return tables[sequence][position / blockSize] * blockSize + position % blockSize;
    }

    /** Records that {@code position} of the sequence now holds data (called by the forward pass). */
    public void markWritten(int sequence, int position) {
        if (position >= lengths[sequence]) lengths[sequence] = position + 1;
    }

    /** Forgets a sequence and lets its blocks go (cached ones stay findable by their prefix). */
    public void clear(int sequence) {
        truncate(sequence, 0);
    }

    /** Drops positions {@code from..} of a sequence and the blocks wholly beyond them, e.g. to rewind. */
    public void truncate(int sequence, int from) {
        checkSequence(sequence);
        if (from < 0) throw new IllegalArgumentException("negative position " + from);
        int keep = blocksFor(from);
        // the last first: the pool hands freed blocks out last in, first out, so a later sequence gets them in
        // the order this one had them, and reads them forward (see the storage above)
        for (int b = blockCounts[sequence] - 1; b >= keep; b--) pool.release(tables[sequence][b]);
        blockCounts[sequence] = Math.min(blockCounts[sequence], keep);
        lengths[sequence] = Math.min(lengths[sequence], from);
        committed[sequence] = Math.min(committed[sequence], lengths[sequence] / blockSize);
    }

    /**
     * Gives {@code to} positions {@code 0..positions-1} of {@code from} (every layer) by sharing their
     * blocks, so that {@code n > 1} choices share one prefill; the first write into a shared block
     * copies it. {@code to}'s own positions are dropped first.
     */
    public void copy(int from, int to, int positions) {
        checkSequence(from);
        checkSequence(to);
        if (positions < 0 || positions > lengths[from]) {
            throw new IllegalArgumentException("cannot copy " + positions + " positions of sequence " + from
                    + ", which holds " + lengths[from]);
        }
        if (from == to) return;
        clear(to);
        int blocks = blocksFor(positions);
        for (int b = 0; b < blocks; b++) {
            int block = tables[from][b];
            pool.retain(block);
            tables[to][b] = block;
            chain[to][b] = chain[from][b];
        }
        blockCounts[to] = blocks;
        lengths[to] = positions;
        committed[to] = Math.min(committed[from], positions / blockSize);
    }

    /**
     * Gives an empty sequence the cached blocks that hold a prefix of {@code tokens}, within the first
     * {@code maxPositions} positions: whole blocks shared, and then the first positions of a cached block
     * that the prefix goes on into, copied into a block of the sequence's own (llama.cpp's server reuses
     * a slot's previous prompt to the token; a repeated prompt of a chat client otherwise recomputed up
     * to a block's worth of tokens, the prompt's tail). The copied positions hold what the cached
     * block's writer computed for the same tokens after the same prefix.
     *
     * @return the positions now held
     */
    public int attachCachedPrefix(int sequence, int[] tokens, int maxPositions) {
        checkSequence(sequence);
        if (blockCounts[sequence] != 0) throw new IllegalStateException("sequence " + sequence + " is not empty");
        int limit = Math.min(Math.min(maxPositions, tokens.length), contextLength) / blockSize;
        long parent = BlockPool.ROOT;
        int b = 0;
        for (; b < limit; b++) {
            long hash = BlockPool.chain(parent, tokens, b * blockSize, blockSize);
            int block = pool.lookup(hash, parent, tokens, b * blockSize, blockSize);
            if (block < 0) break;
            pool.retain(block);
            tables[sequence][b] = block;
            chain[sequence][b] = hash;
            parent = hash;
        }
        blockCounts[sequence] = b;
        lengths[sequence] = b * blockSize;
        committed[sequence] = b;
        int rest = Math.min(Math.min(maxPositions, tokens.length), contextLength) - b * blockSize;
        if (rest > 0) attachPartOfCachedBlock(sequence, tokens, b, parent, Math.min(rest, blockSize));
        return lengths[sequence];
    }

    /** The first positions of the cached block that continues the prefix, up to {@code maxLength}, copied into logical block {@code b}. */
    private void attachPartOfCachedBlock(int sequence, int[] tokens, int b, long parent, int maxLength) {
        BlockPool.PartialMatch match = pool.longestPartialMatch(parent, tokens, b * blockSize, maxLength);
        if (match.length() == 0) return;
        pool.retain(match.block()); // so that the allocation cannot evict it
        int own = allocate();
        if (own >= 0) {
            copyPositions(match.block(), own, match.length());
            tables[sequence][b] = own;
            blockCounts[sequence] = b + 1;
            lengths[sequence] = b * blockSize + match.length();
        }
        pool.release(match.block());
    }

    /**
     * Offers the sequence's full blocks to the prefix cache; {@code tokens[p]} is the token at position
     * {@code p}, for every position written so far.
     */
    public void commitFullBlocks(int sequence, int[] tokens) {
        checkSequence(sequence);
        int full = lengths[sequence] / blockSize;
        for (int b = committed[sequence]; b < full; b++) {
            long parent = b == 0 ? BlockPool.ROOT : chain[sequence][b - 1];
            long hash = BlockPool.chain(parent, tokens, b * blockSize, blockSize);
            pool.register(tables[sequence][b], hash, parent, tokens, b * blockSize, blockSize);
            chain[sequence][b] = hash;
        }
        if (full > committed[sequence]) committed[sequence] = full;
    }

    private int allocate() {
        int block = pool.allocate();
        if (block >= 0 && keys[0][block / SLAB_BLOCKS] == null) {
            int slab = block / SLAB_BLOCKS;
            int halves = Math.min(SLAB_BLOCKS, totalBlocks - slab * SLAB_BLOCKS) * blockSize * kvLength;
            for (int l = 0; l < layers; l++) {
                keys[l][slab] = new short[halves];
                values[l][slab] = new short[halves];
            }
        }
        return block;
    }

    /** The first {@code positions} positions of block {@code from}, every layer and head, into block {@code to}. */
    private void copyPositions(int from, int to, int positions) {
        int halves = positions * headDim;
        for (int l = 0; l < layers; l++) {
            for (int h = 0; h < kvHeads; h++) {
                System.arraycopy(keys[l][from / SLAB_BLOCKS], headAt(from, h), keys[l][to / SLAB_BLOCKS], headAt(to, h), halves);
                System.arraycopy(values[l][from / SLAB_BLOCKS], headAt(from, h), values[l][to / SLAB_BLOCKS], headAt(to, h), halves);
            }
        }
    }

    private int checkSequence(int sequence) {
        if (sequence < 0 || sequence >= maxSequences) {
            throw new IllegalArgumentException("sequence " + sequence + " is outside 0.." + (maxSequences - 1));
        }
        return sequence;
    }
}
