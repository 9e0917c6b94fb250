package dev.inferd.engine.kvcache;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The fixed set of KV blocks and who holds them: a reference count per block (sequences that share a
 * prompt hold the same blocks), a free list, and the prefix cache. A full block whose tokens are known
 * is registered under the hash of those tokens chained with its prefix's hash; when its last holder
 * lets it go it is not wiped but kept in a least-recently-used list, where a later request with the
 * same prefix can take it back, until an allocation finds no never-used block and evicts it.
 *
 * <p>The key is the tokens alone, not how they were computed: a follow-up turn that quotes an earlier
 * answer gets the blocks the answer was generated in (row kernels), where a cold run computes those
 * positions as prompt (the tiled product), which rounds differently. Its tokens stay the same in
 * practice, but its log-probabilities differ from a cold run's in the fifth digit (stories260K,
 * {@code ContinuousBatchingTest}). Keying by role as well would be exact, but every turn would then
 * recompute the previous answer as prompt (at the 1B Q4_0's prefill of about 42 tokens/s, 12 s for
 * a 500-token answer), and multi-turn reuse is what the cache is for. What runs beside a request
 * never matters.
 *
 * <p>Hashes are 64-bit and a hit also compares the block's own tokens, so two prefixes are confused
 * only if their earlier blocks collide in 64 bits. Not thread-safe: the scheduler thread owns it.
 */
final class BlockPool {
    private static final int NONE = -1;
    /** The chain's starting value: the hash of the empty prefix. */
    static final long ROOT = 0x6A09E667F3BCC909L;

    private final int[] refCount;
    private final int[] freeStack;
    private int freeCount;
    // least recently used first: blocks nobody holds that still carry a registered prefix
    private final int[] lruPrev;
    private final int[] lruNext;
    private int lruHead = NONE;
    private int lruTail = NONE;
    private int lruCount;
    private final boolean[] registered;
    private final long[] hashes;
    private final long[] parents;
    private final int[][] tokens;
    private final Map<Long, Integer> index = new HashMap<>();
    private int used;

    BlockPool(int blocks) {
        if (blocks <= 0) throw new IllegalArgumentException("a KV block pool needs at least one block, got " + blocks);
        refCount = new int[blocks];
        freeStack = new int[blocks];
        for (int i = 0; i < blocks; i++) freeStack[i] = blocks - 1 - i; // block 0 comes out first
        freeCount = blocks;
        lruPrev = new int[blocks];
        lruNext = new int[blocks];
        registered = new boolean[blocks];
        hashes = new long[blocks];
        parents = new long[blocks];
        tokens = new int[blocks][];
    }

    int total() { return refCount.length; }

    /** Blocks held by at least one sequence. */
    int used() { return used; }

    /** Blocks nobody holds that keep a cached prefix (they are reused last). */
    int cached() { return lruCount; }

    /** Blocks an allocation can still get: never used or freed, plus cached ones it may evict. */
    int available() { return freeCount + lruCount; }

    int refCount(int block) { return refCount[block]; }

    boolean isRegistered(int block) { return registered[block]; }

    /** A block with a reference count of one, or -1 when every block is held. */
    int allocate() {
        int block;
        if (freeCount > 0) {
            block = freeStack[--freeCount];
        } else if (lruHead != NONE) {
            block = lruHead;
            unlink(block);
            unregister(block);
        } else {
            return NONE;
        }
        refCount[block] = 1;
        used++;
        return block;
    }

    /** One more holder of a block (a shared prompt, or a prefix-cache hit). */
    void retain(int block) {
        if (refCount[block] == 0) {
            unlink(block);
            used++;
        }
        refCount[block]++;
    }

    /** A holder lets the block go; the last one returns it to the free list or the cached list. */
    void release(int block) {
        if (refCount[block] <= 0) throw new IllegalStateException("block " + block + " released more often than held");
        if (--refCount[block] > 0) return;
        used--;
        if (registered[block]) {
            append(block);
        } else {
            freeStack[freeCount++] = block;
        }
    }

    /** The registered block holding exactly these tokens after the prefix hashed {@code parent}, or -1. */
    int lookup(long hash, long parent, int[] source, int from, int length) {
        Integer block = index.get(hash);
        if (block == null || parents[block] != parent) return NONE;
        if (!Arrays.equals(tokens[block], 0, length, source, from, from + length)) return NONE;
        return block;
    }

    /** A registered block whose first {@code length} tokens continue a prefix, or none ({@code length} 0). */
    record PartialMatch(int block, int length) {
    }

    /**
     * The registered block after the prefix hashed {@code parent} whose first tokens match the most of
     * {@code source[from ..from + maxLength)}: a prompt that stops inside a cached block, or leaves it,
     * can still take its first positions. Looks at every block of the pool, once per admitted request:
     * microseconds for thousands of blocks, where an index by parent would have to be kept in step.
     */
    PartialMatch longestPartialMatch(long parent, int[] source, int from, int maxLength) {
        int best = NONE, bestLength = 0;
        for (int block = 0; block < refCount.length; block++) {
            if (!registered[block] || parents[block] != parent) continue;
            int[] own = tokens[block];
            int n = 0;
            while (n < maxLength && n < own.length && own[n] == source[from + n]) n++;
            if (n > bestLength) {
                best = block;
                bestLength = n;
            }
        }
        return new PartialMatch(best, bestLength);
    }

    /** Makes a full block findable by its prefix; false when another block already holds that prefix. */
    boolean register(int block, long hash, long parent, int[] source, int from, int length) {
        if (registered[block] || index.containsKey(hash)) return false;
        registered[block] = true;
        hashes[block] = hash;
        parents[block] = parent;
        tokens[block] = Arrays.copyOfRange(source, from, from + length);
        index.put(hash, block);
        return true;
    }

    /** Forgets a block's prefix (its contents are about to change, or it is evicted). */
    void unregister(int block) {
        if (!registered[block]) return;
        index.remove(hashes[block], block);
        registered[block] = false;
        tokens[block] = null;
    }

    /** The hash of {@code length} tokens following a prefix whose hash is {@code parent}. */
    static long chain(long parent, int[] source, int from, int length) {
        long h = mix(parent + length);
        for (int i = from; i < from + length; i++) h = mix(h ^ source[i]);
        return h;
    }

    private static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void append(int block) {
        lruPrev[block] = lruTail;
        lruNext[block] = NONE;
        if (lruTail != NONE) lruNext[lruTail] = block; else lruHead = block;
        lruTail = block;
        lruCount++;
    }

    private void unlink(int block) {
        int p = lruPrev[block];
        int n = lruNext[block];
        if (p != NONE) lruNext[p] = n; else lruHead = n;
        if (n != NONE) lruPrev[n] = p; else lruTail = p;
        lruCount--;
    }
}
