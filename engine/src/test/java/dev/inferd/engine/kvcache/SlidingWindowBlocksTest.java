package dev.inferd.engine.kvcache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sliding-window layers' own pool: blocks behind the window let go, a bounded pool, prefix-cache hits only as far
 * as the window before them is still held, sharing and rewinding.
 */
class SlidingWindowBlocksTest {
    private static final int BS = 4;
    /** Layer 0 slides over 6 positions, layer 1 sees everything. */
    private static final SlidingWindows WINDOWS = new SlidingWindows(6, new boolean[] {true, false});

    /** Two sequences of up to 64 positions writing up to {@code maxWrite} positions at a time. */
    private static KVCache cache(int maxWrite) {
        return new KVCache(2, 1, 2, 2, 64, BS, 32, WINDOWS, 2 * WINDOWS.blocksPerSequence(BS, 64, maxWrite));
    }

    /** Both layers: key {@code value + p} at (seq, p); the scheduler's commit and release after every position. */
    private static void write(KVCache c, int seq, int from, int to, float value, int[] tokens) {
        for (int p = from; p < to; p++) {
            int cell = c.prepareWrite(seq, p);
            float[] kv = {value + p, 0};
            c.store(0, c.windowCell(seq, p), kv, 0, kv, 0);
            c.store(1, cell, kv, 0, kv, 0);
            c.markWritten(seq, p);
            c.commitFullBlocks(seq, tokens);
            c.releaseOutsideWindows(seq);
        }
    }

    private static float key(KVCache c, int layer, int seq, int p) {
        float[] keys = new float[BS * 2];
        int block = c.blockTable(seq, layer)[p / BS];
        assertThat(block).as("layer %d holds position %d", layer, p).isNotNegative();
        c.readKeys(layer, block, 0, BS, keys);
        return keys[(p % BS) * 2];
    }

    private static int[] tokens(int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) t[i] = 100 + i;
        return t;
    }

    private static int[] otherTokens(int n) {
        int[] t = tokens(n);
        for (int i = 0; i < n; i++) t[i] += 1000;
        return t;
    }

    @Test
    void theWindowedLayerHoldsItsWindowAndTheGlobalOneEverything() {
        KVCache c = cache(1);
        // a window of 6 and one position a step: blocks of 4 cover it with three at most
        assertThat(c.windowedTotalBlocks()).isEqualTo(2 * 3);
        write(c, 0, 0, 40, 0, tokens(40));
        assertThat(c.blockCount(0)).isEqualTo(10);
        assertThat(c.windowedUsedBlocks()).isLessThanOrEqualTo(3);
        for (int p = 0; p < 40; p++) assertThat(key(c, 1, 0, p)).isEqualTo(p);
        // the next query, at 40, sees 35..40
        for (int p = 35; p < 40; p++) assertThat(key(c, 0, 0, p)).isEqualTo(p);
        assertThat(c.blockTable(0, 0)[7]).isNegative();
    }

    @Test
    void aCachedPrefixIsTakenAsFarAsItsWindowIsStillCached() {
        KVCache c = cache(1);
        int[] prompt = tokens(40);
        write(c, 0, 0, 40, 0, prompt);
        c.clear(0);
        assertThat(c.attachCachedPrefix(1, prompt, 40)).isEqualTo(40);
        for (int p = 35; p < 40; p++) assertThat(key(c, 0, 1, p)).isEqualTo(p);
        c.clear(1);

        // another sequence's writes evict the windowed blocks of the prompt's end from the small pool
        write(c, 0, 0, 16, 1000, otherTokens(16));
        write(c, 1, 0, 16, 2000, otherTokens(16));
        c.clear(0);
        c.clear(1);
        int hit = c.attachCachedPrefix(0, prompt, 40);
        assertThat(hit % BS).isZero();
        assertThat(hit).isLessThan(40);
        // whatever was attached holds the prompt's own keys, in both layers, over the window before the hit
        for (int p = Math.max(0, hit - 5); p < hit; p++) {
            assertThat(key(c, 0, 0, p)).isEqualTo(p);
            assertThat(key(c, 1, 0, p)).isEqualTo(p);
        }
    }

    @Test
    void aCopySharesTheWindowAndWritesCopyOnWrite() {
        KVCache c = cache(1);
        write(c, 0, 0, 22, 0, tokens(22));
        c.copy(0, 1, 22);
        write(c, 1, 22, 23, 500, tokens(23));
        write(c, 0, 22, 23, 900, tokens(23));
        assertThat(key(c, 0, 1, 22)).isEqualTo(522);
        assertThat(key(c, 0, 0, 22)).isEqualTo(922);
        assertThat(key(c, 0, 1, 21)).isEqualTo(21);
        assertThat(key(c, 1, 1, 3)).isEqualTo(3);
        assertThatThrownBy(() -> c.copy(0, 1, 8)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rewindingBehindTheWindowStartsOver() {
        KVCache c = cache(1);
        write(c, 0, 0, 30, 0, tokens(30));
        c.truncate(0, 29); // the window before 29 (24..28) is still held
        assertThat(c.length(0)).isEqualTo(29);
        assertThat(key(c, 0, 0, 24)).isEqualTo(24);
        c.truncate(0, 12); // 7..11 is not
        assertThat(c.length(0)).isZero();
        assertThat(c.blockCount(0)).isZero();
        assertThat(c.windowedUsedBlocks()).isZero();
    }

    @Test
    void aPoolSizedForLongerWritesHoldsThem() {
        KVCache c = cache(8);
        // window 6 plus 8 written: 14 positions over at most 5 blocks of 4
        assertThat(c.windowedTotalBlocks()).isEqualTo(2 * 5);
        int[] t = tokens(64);
        for (int from = 0; from < 64; from += 8) {
            assertThat(c.ensureWritable(0, from, from + 8)).isTrue();
            assertThat(c.ensureWritable(1, from, from + 8)).isTrue();
            for (int p = from; p < from + 8; p++) {
                c.markWritten(0, p);
                c.markWritten(1, p);
            }
            c.commitFullBlocks(0, t);
            c.commitFullBlocks(1, t);
            c.releaseOutsideWindows(0);
            c.releaseOutsideWindows(1);
        }
        assertThat(c.windowedUsedBlocks()).isLessThanOrEqualTo(2 * 5);
    }
}
