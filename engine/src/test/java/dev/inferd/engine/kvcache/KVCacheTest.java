package dev.inferd.engine.kvcache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Block bookkeeping of the paged cache: sharing, copy-on-write, the prefix cache and its eviction. */
class KVCacheTest {
    private static final int BS = 4;

    /** Two layers of two key-value heads of three values. */
    private static KVCache cache(int blocks) {
        return new KVCache(2, 2, 3, 4, 64, BS, blocks);
    }

    /** Layer 1, second head: key {@code value + p} and value {@code -(value + p)} in its first lane. */
    private static void write(KVCache c, int seq, int from, int to, float value) {
        for (int p = from; p < to; p++) {
            int cell = c.prepareWrite(seq, p);
            float[] keys = {0, 0, 0, value + p, 1, 2};
            float[] values = {0, 0, 0, -(value + p), 3, 4};
            c.store(1, cell, keys, 0, values, 0);
            c.markWritten(seq, p);
        }
    }

    /** Sequence 0 writes {@code tokens} (keys {@code value + p}), offers its full blocks to the prefix cache and lets them go. */
    private static void cacheThroughSequence0(KVCache c, int[] tokens, float value) {
        write(c, 0, 0, tokens.length, value);
        c.commitFullBlocks(0, tokens);
        c.clear(0);
    }

    /** The key at (seq, p), after checking that the value beside it was stored, copied and shared with it. */
    private static float keyAt(KVCache c, int seq, int p) {
        float[] keys = new float[BS * 3], values = new float[BS * 3];
        int block = c.blockTable(seq)[p / BS];
        c.readKeys(1, block, 1, BS, keys);
        c.readValues(1, block, 1, BS, values);
        int at = (p % BS) * 3;
        assertThat(new float[] {values[at], keys[at + 1], keys[at + 2], values[at + 1], values[at + 2]})
                .containsExactly(-keys[at], 1, 2, 3, 4);
        return keys[at];
    }

    @Test
    void blocksInEverySlabKeepTheirOwnPositions() {
        // 70 blocks: a whole slab of 64 and a short one of 6
        KVCache c = new KVCache(2, 2, 3, 5, 64, BS, 70);
        for (int seq = 0; seq < 5; seq++) write(c, seq, 0, 56, 100 * seq); // 14 blocks each, blocks 56..69 for the last
        assertThat(c.availableBlocks()).isZero();
        for (int seq = 0; seq < 5; seq++) {
            for (int p = 0; p < 56; p++) assertThat(keyAt(c, seq, p)).isEqualTo(100 * seq + p);
        }
        c.clear(0);
        c.copy(4, 0, 55);                     // shares blocks on both sides of the slabs' border
        write(c, 0, 54, 55, 500);             // copies the shared block 69 into a freed one of the first slab
        assertThat(keyAt(c, 0, 53)).isEqualTo(453);
        assertThat(keyAt(c, 0, 54)).isEqualTo(554);
        assertThat(keyAt(c, 4, 54)).isEqualTo(454);
        assertThat(c.blockTable(0)[13]).isLessThan(14); // a freed block, handed out again
    }

    @Test
    void sharedBlocksAreCopiedOnWrite() {
        KVCache c = cache(8);
        write(c, 0, 0, 6, 100);                 // blocks: full + partial
        c.copy(0, 1, 6);
        assertThat(c.usedBlocks()).isEqualTo(2);
        assertThat(c.blockTable(1)[0]).isEqualTo(c.blockTable(0)[0]);
        write(c, 1, 6, 7, 200);                 // the shared partial block gets copied for sequence 1
        assertThat(c.usedBlocks()).isEqualTo(3);
        assertThat(c.blockTable(1)[1]).isNotEqualTo(c.blockTable(0)[1]);
        assertThat(keyAt(c, 1, 5)).isEqualTo(105);
        assertThat(keyAt(c, 1, 6)).isEqualTo(206);
        write(c, 0, 6, 7, 300);                 // now the only holder: written in place
        assertThat(c.usedBlocks()).isEqualTo(3);
        assertThat(keyAt(c, 0, 6)).isEqualTo(306);
        c.clear(0);
        c.clear(1);
        assertThat(c.usedBlocks()).isZero();
        assertThat(c.availableBlocks()).isEqualTo(8);
    }

    @Test
    void fullBlocksAreFoundAgainByTheirPrefix() {
        KVCache c = cache(8);
        int[] tokens = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        cacheThroughSequence0(c, tokens, 0);
        assertThat(c.cachedBlocks()).isEqualTo(2);
        assertThat(c.usedBlocks()).isZero();

        int[] same = {1, 2, 3, 4, 5, 6, 7, 8, 42};
        assertThat(c.attachCachedPrefix(1, same, same.length - 1)).isEqualTo(8);
        assertThat(keyAt(c, 1, 7)).isEqualTo(7);
        assertThat(c.cachedBlocks()).isZero();
        assertThat(c.usedBlocks()).isEqualTo(2);

        int[] divergent = {1, 2, 3, 4, 9, 9, 9, 9, 9};
        assertThat(c.attachCachedPrefix(2, divergent, 9)).isEqualTo(4); // the first block only, shared with 1
        assertThat(c.usedBlocks()).isEqualTo(2);
        int[] otherStart = {2, 2, 3, 4, 5, 6, 7, 8};
        assertThat(c.attachCachedPrefix(3, otherStart, 8)).isZero();
        // the limit keeps the last prompt token for the model: one whole block, then three positions
        // of the next one copied
        c.clear(1);
        assertThat(c.attachCachedPrefix(1, same, 7)).isEqualTo(7);
    }

    @Test
    void aPromptThatStopsInsideACachedBlockTakesACopyOfItsFirstPositions() {
        KVCache c = cache(8);
        int[] tokens = {1, 2, 3, 4, 5, 6, 7, 8};
        cacheThroughSequence0(c, tokens, 100);

        int[] shorter = {1, 2, 3, 4, 5, 6, 42, 43};
        assertThat(c.attachCachedPrefix(1, shorter, shorter.length - 1)).isEqualTo(6);
        assertThat(keyAt(c, 1, 4)).isEqualTo(104);
        assertThat(keyAt(c, 1, 5)).isEqualTo(105);
        write(c, 1, 6, 8, 200);
        assertThat(keyAt(c, 1, 6)).isEqualTo(206);

        // the cached block is untouched and still found whole
        assertThat(c.attachCachedPrefix(2, tokens, 8)).isEqualTo(8);
        assertThat(keyAt(c, 2, 6)).isEqualTo(106);
        assertThat(c.blockTable(1)[1]).as("sequence 1's copy").isNotEqualTo(c.blockTable(2)[1]);
        // a prefix that leaves the block at once takes nothing of it
        int[] other = {1, 2, 3, 4, 9, 9, 9};
        assertThat(c.attachCachedPrefix(3, other, 7)).isEqualTo(4);
    }

    @Test
    void withNoBlockLeftForTheCopyOnlyWholeBlocksAreAttached() {
        KVCache c = cache(2);
        int[] tokens = {1, 2, 3, 4, 5, 6, 7, 8};
        write(c, 0, 0, 8, 0);
        c.commitFullBlocks(0, tokens);
        // sequence 0 still holds both blocks: the copy finds no block, and the cached one is not taken
        assertThat(c.attachCachedPrefix(1, new int[] {1, 2, 3, 4, 5, 6, 0}, 7)).isEqualTo(4);
        assertThat(c.usedBlocks()).isEqualTo(2);
    }

    @Test
    void cachedBlocksAreEvictedLeastRecentlyUsedFirstWhenThePoolRunsDry() {
        KVCache c = cache(3);
        int[] a = {1, 1, 1, 1};
        int[] b = {2, 2, 2, 2};
        write(c, 0, 0, 4, 0);
        c.commitFullBlocks(0, a);
        write(c, 1, 0, 4, 0);
        c.commitFullBlocks(1, b);
        c.clear(0);                              // a is older in the cached list
        c.clear(1);
        assertThat(c.cachedBlocks()).isEqualTo(2);
        assertThat(c.ensureWritable(2, 0, 8)).isTrue(); // one free block, then evicts a
        assertThat(c.cachedBlocks()).isEqualTo(1);
        assertThat(c.attachCachedPrefix(3, a, 4)).isZero();
        assertThat(c.attachCachedPrefix(3, b, 4)).isEqualTo(4);
        assertThat(c.ensureWritable(2, 8, 12)).isFalse(); // everything is held now
        assertThatThrownBy(() -> c.prepareWrite(2, 8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("3 blocks are all in use");
    }

    @Test
    void rewritingACachedBlockForgetsItsPrefix() {
        KVCache c = cache(4);
        int[] tokens = {5, 6, 7, 8, 9};
        write(c, 0, 0, 5, 0);
        c.commitFullBlocks(0, tokens);
        c.truncate(0, 2);
        assertThat(c.blockCount(0)).isEqualTo(1);
        write(c, 0, 2, 3, 50);
        c.clear(0);
        assertThat(c.attachCachedPrefix(1, tokens, 5)).isZero();
        assertThat(c.cachedBlocks()).isZero();
    }
}
