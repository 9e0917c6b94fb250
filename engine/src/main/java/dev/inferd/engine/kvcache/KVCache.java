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
 * <p>Sliding windows (Gemma 2 and 3): layers that attend over the last positions only keep their keys and values
 * in a pool of their own, with a block table of their own per sequence, beside the pool of the layers that see the
 * whole context. Both tables follow the same logical blocks, and a block's prefix is registered in both pools under
 * the same hash. Once a sequence's positions fall behind the window of its next query, {@link #releaseOutsideWindows}
 * lets the windowed layers' blocks go (into the prefix cache if registered, where a later request may still find
 * them), so a sequence holds a window's worth of them however long it grows, and the windowed pool is sized for that
 * ({@link SlidingWindows#blocksPerSequence}). A global block cannot be freed while any layer may need it, so only the
 * windowed layers' memory is saved, which for Gemma 3 is five layers in six. A prefix-cache hit counts only as far as
 * the windowed pool still holds the window before its end.
 *
 * <p>Not thread-safe: one thread (the scheduler, or the forward pass's caller) owns it; during a forward pass its
 * workers read it and {@link #store} positions that no other worker reads.
 */
public final class KVCache {
    public static final int DEFAULT_BLOCK_SIZE = 16;
    /** Pool blocks per slab: 1,024 positions at the default block size. */
    static final int SLAB_BLOCKS = 64;

    private static final int NONE = -1;

    private final int layers;
    private final int kvHeads;
    private final int headDim;
    private final int kvLength;
    private final int maxSequences;
    private final int contextLength;
    private final int blockSize;
    private final int totalBlocks;
    private final SlidingWindows windows;
    /** Per layer, the blocks of the pool its storage follows: {@link #totalBlocks} or the windowed pool's. */
    private final int[] layerBlocks;
    private final short[][][] keys;   // [layer][slab] -> slabBlocks * blockSize * kvLength halves, null until first used
    private final short[][][] values;
    private final BlockPool pool;
    private final int[][] tables;     // [sequence][logical block] -> pool block
    private final long[][] chain;     // [sequence][logical block] -> prefix hash up to that block (committed ones)
    private final int[] blockCounts;
    private final int[] lengths;      // highest written position + 1
    private final int[] committed;    // leading blocks registered in (or checked against) the prefix cache
    // the windowed layers' pool and tables, null when no layer slides
    private final BlockPool windowPool;
    private final int[][] windowTables; // [sequence][logical block] -> windowed pool block, NONE once behind the window
    private final int[] windowFirst;    // the first logical block the windowed table still holds

    /** A cache with enough blocks for every sequence to fill the context (storage still grows on demand). */
    public KVCache(int layers, int kvHeads, int headDim, int maxSequences, int contextLength) {
        this(layers, kvHeads, headDim, maxSequences, contextLength, DEFAULT_BLOCK_SIZE,
                maxSequences * Math.ceilDiv(Math.max(contextLength, 1), DEFAULT_BLOCK_SIZE));
    }

    public KVCache(int layers, int kvHeads, int headDim, int maxSequences, int contextLength, int blockSize, int totalBlocks) {
        this(layers, kvHeads, headDim, maxSequences, contextLength, blockSize, totalBlocks, SlidingWindows.none(layers), 0);
    }

    /**
     * A cache whose windowed layers ({@code windows}) keep their keys and values in a pool of {@code windowedBlocks}
     * blocks of their own: {@link SlidingWindows#blocksPerSequence} for each sequence that should never wait for it, or
     * every sequence's whole context for callers that never {@link #releaseOutsideWindows release}.
     */
    public KVCache(int layers, int kvHeads, int headDim, int maxSequences, int contextLength, int blockSize, int totalBlocks,
                   SlidingWindows windows, int windowedBlocks) {
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
        if (windows.layers().length != layers) {
            throw new IllegalArgumentException("sliding windows for " + windows.layers().length + " layers, cache of " + layers);
        }
        if (windows.windowedCount() > 0 && windowedBlocks <= 0) {
            throw new IllegalArgumentException("sliding-window layers need a pool of at least one block, got " + windowedBlocks);
        }
        this.windows = windows;
        int windowBlocks = windows.windowedCount() > 0 ? windowedBlocks : 0;
        layerBlocks = new int[layers];
        keys = new short[layers][][];
        values = new short[layers][][];
        for (int l = 0; l < layers; l++) {
            layerBlocks[l] = windows.isWindowed(l) ? windowBlocks : totalBlocks;
            keys[l] = new short[Math.ceilDiv(layerBlocks[l], SLAB_BLOCKS)][];
            values[l] = new short[Math.ceilDiv(layerBlocks[l], SLAB_BLOCKS)][];
        }
        pool = new BlockPool(totalBlocks);
        int perSequence = Math.ceilDiv(contextLength, blockSize);
        windowPool = windowBlocks > 0 ? new BlockPool(windowBlocks) : null;
        windowTables = windowPool != null ? new int[maxSequences][perSequence] : null;
        windowFirst = new int[maxSequences];
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

    /** Bytes one block of the pool counted by {@link #totalBlocks()} takes once allocated: the layers that see the whole context. */
    public long bytesPerBlock() {
        return bytesPerBlock(layers - windows.windowedCount(), kvLength, blockSize);
    }

    /** Bytes the windowed layers' pool takes once every block of it is allocated (0 when no layer slides). */
    public long windowedBytes() {
        return windowPool == null ? 0 : (long) windowPool.total() * bytesPerBlock(windows.windowedCount(), kvLength, blockSize);
    }

    /** Blocks of the windowed layers' pool (0 when no layer slides). */
    public int windowedTotalBlocks() { return windowPool == null ? 0 : windowPool.total(); }

    /** Blocks of the windowed layers' pool that sequences hold. */
    public int windowedUsedBlocks() { return windowPool == null ? 0 : windowPool.used(); }

    public SlidingWindows windows() { return windows; }

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
     * The block table layer {@code layer} reads the sequence through: {@link #blockTable}, or for a windowed layer the
     * windowed pool's, whose entries behind the window are not blocks. The cache's own array: read only.
     */
    public int[] blockTable(int sequence, int layer) {
        return windows.isWindowed(layer) ? windowTables[checkSequence(sequence)] : tables[checkSequence(sequence)];
    }

    /**
     * Stores the keys {@code k[kOff .. kOff + kvLength)} and values {@code v[vOff ..]} of one position of one layer at
     * {@code cell} (from {@link #prepareWrite}, or for a windowed layer {@link #windowCell}), rounded to halves (to nearest, ties to even). Positions other workers
     * read are not touched, so the forward pass's workers may store their rows' positions side by side.
     */
    public void store(int layer, int cell, float[] k, int kOff, float[] v, int vOff) {
        int block = cell / blockSize, slot = cell % blockSize;
        short[] keyHalves = keys[layer][block / SLAB_BLOCKS], valueHalves = values[layer][block / SLAB_BLOCKS];
        for (int h = 0; h < kvHeads; h++) {
            int at = headAt(layer, block, h) + slot * headDim;
            toHalves(k, kOff + h * headDim, keyHalves, at, headDim);
            toHalves(v, vOff + h * headDim, valueHalves, at, headDim);
        }
    }

    /** Where a key-value head's part of a pool block of a layer starts in its slab. */
    private int headAt(int layer, int block, int kvHead) {
        int slab = block / SLAB_BLOCKS;
        int slabBlocks = Math.min(SLAB_BLOCKS, layerBlocks[layer] - slab * SLAB_BLOCKS);
        return (kvHead * slabBlocks + block % SLAB_BLOCKS) * blockSize * headDim;
    }

    /**
     * Key-value head {@code kvHead}'s keys at the first {@code positions} slots of a pool block (from the layer's
     * {@link #blockTable(int, int)}), into {@code out[slot * headDim() + i]}.
     */
    public void readKeys(int layer, int block, int kvHead, int positions, float[] out) {
        toFloats(keys[layer][block / SLAB_BLOCKS], headAt(layer, block, kvHead), out, positions * headDim);
    }

    /** As {@link #readKeys}, for the values. */
    public void readValues(int layer, int block, int kvHead, int positions, float[] out) {
        toFloats(values[layer][block / SLAB_BLOCKS], headAt(layer, block, kvHead), out, positions * headDim);
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
                if (windowPool != null) {
                    int windowed = allocateWindowed();
                    if (windowed < 0) {
                        pool.release(fresh);
                        return false;
                    }
                    windowTables[sequence][blockCounts[sequence]] = windowed;
                }
                table[blockCounts[sequence]++] = fresh;
            }
            int block = table[b];
            if (pool.refCount(block) > 1) {
                int own = allocate();
                if (own < 0) return false;
                copyPositions(false, block, own, blockSize);
                pool.release(block);
                table[b] = own;
            } else if (pool.isRegistered(block)) {
                pool.unregister(block); // about to be overwritten (after a truncate): no longer that prefix
            }
            if (windowPool != null && !makeWindowedWritable(sequence, b)) return false;
            if (committed[sequence] > b) committed[sequence] = b;
        }
        return true;
    }

    /** {@link #ensureWritable}'s copy-on-write for logical block {@code b} of the windowed table. */
    private boolean makeWindowedWritable(int sequence, int b) {
        int block = windowTables[sequence][b];
        if (block == NONE) {
            throw new IllegalStateException("sequence " + sequence + " has let go of positions " + b * blockSize + ".."
                    + ((b + 1) * blockSize - 1) + " of its sliding-window layers: they cannot be written again");
        }
        if (windowPool.refCount(block) > 1) {
            int own = allocateWindowed();
            if (own < 0) return false;
            copyPositions(true, block, own, blockSize);
            windowPool.release(block);
            windowTables[sequence][b] = own;
        } else if (windowPool.isRegistered(block)) {
            windowPool.unregister(block);
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

    /**
     * Where the windowed layers store (sequence, position), after {@link #prepareWrite} made it writable; -1 when no
     * layer slides.
     */
    public int windowCell(int sequence, int position) {
        if (windowPool == null) return NONE;
        return windowTables[sequence][position / blockSize] * blockSize + position % blockSize;
    }

    /**
     * Lets the windowed layers' blocks go that lie wholly before the window of a query at the sequence's next position
     * ({@link #length}): the sequence never reads them again unless it is cut back before them, which
     * {@link #truncate} turns into starting over. Full blocks should be committed first
     * ({@link #commitFullBlocks}) so that they stay findable in the prefix cache.
     */
    public void releaseOutsideWindows(int sequence) {
        checkSequence(sequence);
        if (windowPool == null) return;
        int behind = Math.min(windows.firstVisible(lengths[sequence]) / blockSize, blockCounts[sequence]);
        int[] table = windowTables[sequence];
        for (int b = windowFirst[sequence]; b < behind; b++) {
            if (table[b] != NONE) windowPool.release(table[b]);
            table[b] = NONE;
        }
        if (behind > windowFirst[sequence]) windowFirst[sequence] = behind;
    }

    /** Records that {@code position} of the sequence now holds data (called by the forward pass). */
    public void markWritten(int sequence, int position) {
        if (position >= lengths[sequence]) lengths[sequence] = position + 1;
    }

    /** Forgets a sequence and lets its blocks go (cached ones stay findable by their prefix). */
    public void clear(int sequence) {
        truncate(sequence, 0);
    }

    /**
     * Drops positions {@code from..} of a sequence and the blocks wholly beyond them, e.g. to rewind; everything, when
     * its windowed layers have let go of part of the window a query at {@code from} would see.
     */
    public void truncate(int sequence, int from) {
        checkSequence(sequence);
        if (from < 0) throw new IllegalArgumentException("negative position " + from);
        if (windowPool != null && from > 0 && windows.firstVisible(from) / blockSize < windowFirst[sequence]) {
            from = 0; // the windowed layers no longer hold the window before that position
        }
        int keep = blocksFor(from);
        // the last first: the pool hands freed blocks out last in, first out, so a later sequence gets them in
        // the order this one had them, and reads them forward (see the storage above)
        for (int b = blockCounts[sequence] - 1; b >= keep; b--) {
            pool.release(tables[sequence][b]);
            if (windowPool != null && windowTables[sequence][b] != NONE) windowPool.release(windowTables[sequence][b]);
        }
        if (keep == 0) windowFirst[sequence] = 0;
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
        int windowStart = windows.firstVisible(positions) / blockSize;
        if (windowPool != null && windowStart < windowFirst[from]) {
            throw new IllegalArgumentException("sequence " + from + " no longer holds the sliding window before position "
                    + positions);
        }
        clear(to);
        int blocks = blocksFor(positions);
        for (int b = 0; b < blocks; b++) {
            int block = tables[from][b];
            pool.retain(block);
            tables[to][b] = block;
            chain[to][b] = chain[from][b];
            if (windowPool != null) {
                int windowed = b >= windowStart ? windowTables[from][b] : NONE;
                if (windowed != NONE) windowPool.retain(windowed);
                windowTables[to][b] = windowed;
            }
        }
        windowFirst[to] = windowPool != null ? Math.min(windowStart, blocks) : 0;
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
            tables[sequence][b] = block;
            chain[sequence][b] = hash;
            parent = hash;
        }
        int windowStart = 0;
        if (windowPool != null) {
            // as far as the windowed pool still holds the window before the hit's end
            while (b > 0 && !findWindowedBlocks(sequence, tokens, b)) b--;
            windowStart = windows.firstVisible(b * blockSize) / blockSize;
            for (int w = 0; w < b; w++) {
                if (w < windowStart) windowTables[sequence][w] = NONE;
                else windowPool.retain(windowTables[sequence][w]);
            }
        }
        for (int w = 0; w < b; w++) pool.retain(tables[sequence][w]);
        parent = b == 0 ? BlockPool.ROOT : chain[sequence][b - 1];
        blockCounts[sequence] = b;
        lengths[sequence] = b * blockSize;
        committed[sequence] = b;
        windowFirst[sequence] = windowStart;
        int rest = Math.min(Math.min(maxPositions, tokens.length), contextLength) - b * blockSize;
        if (rest > 0) attachPartOfCachedBlock(sequence, tokens, b, parent, Math.min(rest, blockSize));
        return lengths[sequence];
    }

    /**
     * Whether the windowed pool holds the blocks of the window before position {@code blocks * blockSize} of the
     * prefix whose hashes are in {@code chain[sequence]}; if so they are in the sequence's windowed table (not retained).
     */
    private boolean findWindowedBlocks(int sequence, int[] tokens, int blocks) {
        for (int w = windows.firstVisible(blocks * blockSize) / blockSize; w < blocks; w++) {
            long parent = w == 0 ? BlockPool.ROOT : chain[sequence][w - 1];
            int block = windowPool.lookup(chain[sequence][w], parent, tokens, w * blockSize, blockSize);
            if (block < 0) return false;
            windowTables[sequence][w] = block;
        }
        return true;
    }

    /** The first positions of the cached block that continues the prefix, up to {@code maxLength}, copied into logical block {@code b}. */
    private void attachPartOfCachedBlock(int sequence, int[] tokens, int b, long parent, int maxLength) {
        BlockPool.PartialMatch match = pool.longestPartialMatch(parent, tokens, b * blockSize, maxLength);
        int length = match.length();
        BlockPool.PartialMatch windowed = null;
        if (windowPool != null && length > 0) {
            windowed = windowPool.longestPartialMatch(parent, tokens, b * blockSize, length);
            length = windowed.length();
        }
        if (length == 0) return;
        pool.retain(match.block()); // so that the allocations cannot evict them
        if (windowed != null) windowPool.retain(windowed.block());
        int own = allocate();
        int ownWindowed = own >= 0 && windowed != null ? allocateWindowed() : NONE;
        if (own >= 0 && (windowed == null || ownWindowed >= 0)) {
            copyPositions(false, match.block(), own, length);
            tables[sequence][b] = own;
            if (windowed != null) {
                copyPositions(true, windowed.block(), ownWindowed, length);
                windowTables[sequence][b] = ownWindowed;
            }
            blockCounts[sequence] = b + 1;
            lengths[sequence] = b * blockSize + length;
        } else if (own >= 0) {
            pool.release(own);
        }
        pool.release(match.block());
        if (windowed != null) windowPool.release(windowed.block());
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
            if (windowPool != null && windowTables[sequence][b] != NONE) {
                windowPool.register(windowTables[sequence][b], hash, parent, tokens, b * blockSize, blockSize);
            }
            chain[sequence][b] = hash;
        }
        if (full > committed[sequence]) committed[sequence] = full;
    }

    private int allocate() {
        int block = pool.allocate();
        if (block >= 0) allocateSlabs(false, block);
        return block;
    }

    private int allocateWindowed() {
        int block = windowPool.allocate();
        if (block >= 0) allocateSlabs(true, block);
        return block;
    }

    /** The storage of the windowed layers, or of the others, for the slab that holds {@code block}, if not yet there. */
    private void allocateSlabs(boolean windowed, int block) {
        int slab = block / SLAB_BLOCKS;
        for (int l = 0; l < layers; l++) {
            if (windows.isWindowed(l) != windowed || keys[l][slab] != null) continue;
            int halves = Math.min(SLAB_BLOCKS, layerBlocks[l] - slab * SLAB_BLOCKS) * blockSize * kvLength;
            keys[l][slab] = new short[halves];
            values[l][slab] = new short[halves];
        }
    }

    /** The first {@code positions} positions of block {@code from}, every windowed layer or every other, and head, into block {@code to}. */
    private void copyPositions(boolean windowed, int from, int to, int positions) {
        int halves = positions * headDim;
        for (int l = 0; l < layers; l++) {
            if (windows.isWindowed(l) != windowed) continue;
            for (int h = 0; h < kvHeads; h++) {
                System.arraycopy(keys[l][from / SLAB_BLOCKS], headAt(l, from, h), keys[l][to / SLAB_BLOCKS], headAt(l, to, h), halves);
                System.arraycopy(values[l][from / SLAB_BLOCKS], headAt(l, from, h), values[l][to / SLAB_BLOCKS], headAt(l, to, h), halves);
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
