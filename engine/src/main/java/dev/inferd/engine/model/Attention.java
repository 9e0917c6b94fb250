package dev.inferd.engine.model;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.tensor.vector.Lanes;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * A layer's attention for a batch, on the worker pool: every query head of every activation row against its
 * sequence's keys and values at positions 0..pos, read through the sequence's block table (position {@code t} is
 * slot {@code t % blockSize} of block {@code table[t / blockSize]}). The cache holds halves; a task widens its
 * key-value head's part of a block into a worker's float buffer of one block ({@link KVCache#readKeys}), which
 * stays in L1 while its scores or weighted values are computed, and the kernels below read floats.
 *
 * <p>A task takes up to {@link #HEADS} query heads that share a key-value head (grouped-query attention), and
 * reads each key and value once for all of them: a head alone read them from L2 for every one of its positions
 * and waited on its own chains of fused multiply-adds. It takes them for a run of up to {@link #ROWS} rows of one
 * sequence at consecutive positions (a prompt's), which share their keys and values but for the last few: each
 * block is widened once for the run, not once a row, and is read from L1 by every row (a 512-token prompt 3584
 * tokens into the context spent a quarter of its attention widening blocks, one row at a time). Each head's numbers
 * are still those of a head alone ({@link #attendOne}): its scores are the same dot products, lane for lane, its
 * weighted sum of values the same chain per output over the positions in order, so a row's result does not depend
 * on which heads or rows share its task.
 *
 * <p>Attention runs at llama.cpp's default precision: its KV cache holds F16, and ggml's CPU matmuls against F16
 * round the other operand (the query, the attention weights) to F16 too. Doing the same brings our
 * log-probabilities on stories260K to within 2e-3 (chosen tokens) of llama.cpp's, where a plain F32 attention
 * drifts several times further.
 */
final class Attention implements WorkerPool.Task {
    /** The scores' dot products take 8 lanes, whose sums in a fixed order ({@link Lanes#sum}) are the scores' bits. */
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    /** The weighted sums of values: each output is one chain over the positions whatever the vector's width. */
    private static final VectorSpecies<Float> P = FloatVector.SPECIES_PREFERRED;
    /** Query heads a task takes together, each key and value row read once for them. */
    static final int HEADS = 4;
    /** Rows of one sequence a task takes together, each block widened once for them. */
    static final int ROWS = 8;
    /**
     * Multiply-adds of the scores (as many again for the values) from which a call is shared out to the pool: below,
     * a short context on a small model, handing out the heads and waiting for them costs more than they take.
     */
    static final long SHARED_FROM_WORK = 1 << 14;

    private final ModelConfig config;
    private final WorkerPool pool;
    /** Query heads a task takes: {@link #HEADS}, or 1 where a test compares the two paths. */
    private final int heads;
    /**
     * Per worker, {@link #ROWS} {@code x} {@link #HEADS} arrays of attention weights, {@code [row * HEADS + head]};
     * they grow with the longest context a batch has attended over, up to the cache's context length.
     */
    private float[][] scores = new float[0][];
    /** Per worker, one block of one key-value head's keys, then of its values, as floats ({@code [slot * headDim + i]}). */
    private float[][] blocks = new float[0][];
    private Batch batch;
    private KVCache cache;
    private int layer;
    /** Query heads, by activation row: {@code q[row * queryLength + head * headDim ..]}. */
    private float[] q;
    /** The attention's output, laid out as q. */
    private float[] out;
    /** The batch entry in each activation row. */
    private int[] entries;
    /** Runs of rows a task takes: run {@code i} is rows {@code runStarts[i] .. runStarts[i + 1] - 1}. */
    private int[] runStarts = new int[1];
    private int runs;

    Attention(ModelConfig config, WorkerPool pool) {
        this(config, pool, HEADS);
    }

    /** With {@code heads} 1, every head alone: for tests, which compare the grouped heads' numbers with it. */
    Attention(ModelConfig config, WorkerPool pool, int heads) {
        if (heads != 1 && heads != HEADS) throw new IllegalArgumentException("a task takes 1 or " + HEADS + " heads, not " + heads);
        this.config = config;
        this.pool = pool;
        this.heads = heads;
    }

    /** Layer {@code layer}'s attention for the batch's {@code rows} activation rows, from their queries q into out. */
    void run(Batch batch, KVCache cache, int layer, int rows, int[] entries, float[] q, float[] out) {
        int workers = pool.threads();
        int longest = 0;
        for (int row = 0; row < rows; row++) longest = Math.max(longest, batch.position(entries[row]) + 1);
        if (scores.length < workers * ROWS * HEADS || scores[0].length < longest) {
            // doubling, not to the batch's length: a sequence's context grows by one position a step
            int length = scores.length == 0 ? 0 : scores[0].length;
            scores = new float[workers * ROWS * HEADS][Math.max(longest, Math.min(2 * length, cache.contextLength()))];
        }
        if (blocks.length < workers || blocks[0].length < cache.blockSize() * cache.headDim()) {
            blocks = new float[workers][cache.blockSize() * cache.headDim()];
        }
        this.batch = batch;
        this.cache = cache;
        this.layer = layer;
        this.entries = entries;
        this.q = q;
        this.out = out;
        splitIntoRuns(rows);
        try {
            int tasks = runs * tasksPerRun();
            if (longest * (long) rows * config.queryLength() < SHARED_FROM_WORK) {
                for (int task = 0; task < tasks; task++) run(task, 0);
            } else {
                pool.parallelFor(tasks, this);
            }
        } finally {
            this.batch = null;
            this.cache = null;
            this.q = null;
            this.out = null;
        }
    }

    /** Cuts the rows into runs of up to {@link #ROWS} rows of one sequence at consecutive positions. */
    private void splitIntoRuns(int rows) {
        if (runStarts.length < rows + 1) runStarts = new int[rows + 1];
        runs = 0;
        for (int row = 0; row < rows; row++) {
            boolean continues = row > 0 && row - runStarts[runs - 1] < ROWS
                    && batch.sequence(entries[row]) == batch.sequence(entries[row - 1])
                    && batch.position(entries[row]) == batch.position(entries[row - 1]) + 1;
            if (!continues) runStarts[runs++] = row;
        }
        runStarts[runs] = rows;
    }

    /** Per key-value head, its query heads {@link #heads} at a time. */
    private int tasksPerRun() {
        return config.headCountKv() * Math.ceilDiv(config.groupSize(), heads);
    }

    @Override
    public void run(int task, int worker) {
        int perRun = tasksPerRun();
        int chunks = perRun / config.headCountKv();
        int run = task / perRun;
        int kvHead = task % perRun / chunks;
        int first = kvHead * config.groupSize() + task % chunks * heads;
        int count = Math.min(heads, (kvHead + 1) * config.groupSize() - first);
        int headDim = config.headDim();
        int from = runStarts[run], to = runStarts[run + 1];
        if (count == HEADS && headDim % F.length() == 0 && headDim % (2 * P.length()) == 0) {
            attendFour(from, to, first, worker * ROWS * HEADS, blocks[worker]);
        } else { // shapes the four-head kernels do not take: each head and row alone, widening its own blocks
            for (int row = from; row < to; row++) {
                for (int h = 0; h < count; h++) attendOne(row, first + h, scores[worker * ROWS * HEADS], blocks[worker]);
            }
        }
    }

    /**
     * Query heads {@code first .. first + 3}, which share a key-value head, of rows {@code from .. to - 1}, one sequence
     * at consecutive positions, with the worker's {@code scores} from {@code scoresAt} and {@code block} as its buffer
     * of one block.
     */
    private void attendFour(int from, int to, int first, int scoresAt, float[] block) {
        int headDim = config.headDim();
        int blockSize = cache.blockSize();
        int[] table = cache.blockTable(batch.sequence(entries[from]), layer);
        int last = batch.position(entries[to - 1]); // the run's last row sees every position the others see
        int kvHead = first / config.groupSize();
        // the run's first row sees the earliest position of a sliding window: blocks before its block are not read
        int firstBlock = firstBlockStart(batch.position(entries[from]));
        for (int start = firstBlock; start <= last; start += blockSize) {
            cache.readKeys(layer, table[start / blockSize], kvHead, Math.min(last + 1 - start, blockSize), block);
            for (int row = from; row < to; row++) {
                int end = Math.min(batch.position(entries[row]), start + blockSize - 1);
                if (end < start) continue;
                int qOff = row * config.queryLength() + first * headDim;
                int at = scoresAt + (row - from) * HEADS;
                float[] s0 = scores[at], s1 = scores[at + 1], s2 = scores[at + 2], s3 = scores[at + 3];
                int t = start;
                for (; t + 7 <= end; t += 8) {
                    int kOff = (t - start) * headDim;
                    scoresEightKeys(q, qOff, headDim, block, kOff, headDim, s0, t);
                    scoresEightKeys(q, qOff + headDim, headDim, block, kOff, headDim, s1, t);
                    scoresEightKeys(q, qOff + 2 * headDim, headDim, block, kOff, headDim, s2, t);
                    scoresEightKeys(q, qOff + 3 * headDim, headDim, block, kOff, headDim, s3, t);
                }
                for (; t + 1 <= end; t += 2) scoresTwoKeys(q, qOff, headDim, block, (t - start) * headDim, headDim, s0, s1, s2, s3, t);
                if (t <= end) scoresOneKey(q, qOff, headDim, block, (t - start) * headDim, s0, s1, s2, s3, t);
            }
        }
        for (int row = from; row < to; row++) {
            int position = batch.position(entries[row]);
            int visible = config.conventions().firstVisible(layer, position);
            int at = scoresAt + (row - from) * HEADS;
            for (int h = 0; h < HEADS; h++) weights(scores[at + h], firstBlock, visible, position);
            int qOff = row * config.queryLength() + first * headDim;
            Arrays.fill(out, qOff, qOff + HEADS * headDim, 0f);
        }
        for (int start = firstBlock; start <= last; start += blockSize) {
            cache.readValues(layer, table[start / blockSize], kvHead, Math.min(last + 1 - start, blockSize), block);
            for (int row = from; row < to; row++) {
                int positions = Math.min(batch.position(entries[row]) + 1 - start, blockSize);
                if (positions <= 0) continue;
                int qOff = row * config.queryLength() + first * headDim;
                int at = scoresAt + (row - from) * HEADS;
                for (int i = 0; i < headDim; i += 2 * P.length()) {
                    accumulateFour(block, positions, headDim, i, start, scores[at], scores[at + 1], scores[at + 2], scores[at + 3],
                            out, qOff + i);
                }
            }
        }
    }

    /** Where the first block a query at {@code position} reads starts: its sliding window's, else 0. */
    private int firstBlockStart(int position) {
        int visible = config.conventions().firstVisible(layer, position);
        return visible - visible % cache.blockSize();
    }

    /**
     * The scores {@code s[visible..last]} soft-capped where the model caps them and scaled, then as attention weights:
     * the softmax, rounded to halves. Positions {@code first .. visible - 1}, read with the window's first block but
     * outside this query's window, get weight 0, so their values add nothing.
     */
    private void weights(float[] s, int first, int visible, int last) {
        var conventions = config.conventions();
        float scale = conventions.queryScale() > 0 ? 1f : (float) (1.0 / Math.sqrt(config.headDim()));
        float cap = conventions.attentionSoftcap();
        if (cap > 0) SoftCap.apply(s, visible, last + 1, cap);
        float max = Float.NEGATIVE_INFINITY;
        for (int t = visible; t <= last; t++) {
            float score = s[t] * scale;
            s[t] = score;
            if (score > max) max = score;
        }
        float sum = visible == 0 ? Lanes.softmaxNumerators(s, last + 1, max) : SoftCap.softmaxNumerators(s, visible, last + 1, max);
        float inv = 1f / sum;
        for (int t = visible; t <= last; t++) s[t] = roundToHalf(s[t] * inv);
        Arrays.fill(s, first, visible, 0f);
    }

    /** Lanes 4-7, and lanes 2, 3, 6 and 7: where {@link #scoresEightKeys}'s folds take the second vector's lanes. */
    private static final VectorMask<Float> HIGH_HALF = VectorMask.fromValues(F, false, false, false, false, true, true, true, true);
    private static final VectorMask<Float> HIGH_PAIRS = VectorMask.fromValues(F, false, false, true, true, false, false, true, true);
    private static final VectorShuffle<Float> SWAP_HALVES = VectorShuffle.fromValues(F, 4, 5, 6, 7, 0, 1, 2, 3);
    private static final VectorShuffle<Float> LOW_PAIRS = VectorShuffle.fromValues(F, 0, 1, 0, 1, 4, 5, 4, 5);
    private static final VectorShuffle<Float> HIGH_PAIRS_DOWN = VectorShuffle.fromValues(F, 2, 3, 2, 3, 6, 7, 6, 7);
    private static final VectorShuffle<Float> EVENS = VectorShuffle.fromValues(F, 0, 2, 0, 2, 4, 6, 4, 6);
    private static final VectorShuffle<Float> ODDS = VectorShuffle.fromValues(F, 1, 3, 1, 3, 5, 7, 5, 7);

    /**
     * Keys {@code t .. t + 7} ({@code stride} apart from {@code keys[kOff]}) against the query head at {@code q[qOff]},
     * into {@code s[t .. t + 7]}: per key {@link #dot}'s chain, and the eight chains' lane sums folded together. Each
     * key's sum is {@link Lanes#sum}'s, {@code ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7))}, the same additions
     * of the same values (addition commutes exactly): three folds of the eight vectors, each halving them, in about 33
     * vector instructions against 56 for eight sums one by one, and one store. The chains are paired so that the last
     * fold leaves the keys in order.
     */
    private static void scoresEightKeys(float[] q, int qOff, int headDim, float[] keys, int kOff, int stride, float[] s, int t) {
        int k1 = kOff + stride, k2 = k1 + stride, k3 = k2 + stride, k4 = k3 + stride, k5 = k4 + stride, k6 = k5 + stride, k7 = k6 + stride;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        var a4 = FloatVector.zero(F);
        var a5 = FloatVector.zero(F);
        var a6 = FloatVector.zero(F);
        var a7 = FloatVector.zero(F);
        for (int i = 0; i < headDim; i += F.length()) {
            var x = FloatVector.fromArray(F, q, qOff + i);
            a0 = x.fma(FloatVector.fromArray(F, keys, kOff + i), a0);
            a1 = x.fma(FloatVector.fromArray(F, keys, k1 + i), a1);
            a2 = x.fma(FloatVector.fromArray(F, keys, k2 + i), a2);
            a3 = x.fma(FloatVector.fromArray(F, keys, k3 + i), a3);
            a4 = x.fma(FloatVector.fromArray(F, keys, k4 + i), a4);
            a5 = x.fma(FloatVector.fromArray(F, keys, k5 + i), a5);
            a6 = x.fma(FloatVector.fromArray(F, keys, k6 + i), a6);
            a7 = x.fma(FloatVector.fromArray(F, keys, k7 + i), a7);
        }
        // first fold, keys j and j + 4: [v0 + v4 .. v3 + v7] of each in one vector's halves
        var w04 = a0.blend(a4, HIGH_HALF).add(a4.blend(a0, HIGH_HALF).rearrange(SWAP_HALVES));
        var w15 = a1.blend(a5, HIGH_HALF).add(a5.blend(a1, HIGH_HALF).rearrange(SWAP_HALVES));
        var w26 = a2.blend(a6, HIGH_HALF).add(a6.blend(a2, HIGH_HALF).rearrange(SWAP_HALVES));
        var w37 = a3.blend(a7, HIGH_HALF).add(a7.blend(a3, HIGH_HALF).rearrange(SWAP_HALVES));
        // second fold, w0 + w2 and w1 + w3: [key j's two, key j + 1's two] in each half
        var u0415 = w04.blend(w15.rearrange(LOW_PAIRS), HIGH_PAIRS).add(w04.rearrange(HIGH_PAIRS_DOWN).blend(w15, HIGH_PAIRS));
        var u2637 = w26.blend(w37.rearrange(LOW_PAIRS), HIGH_PAIRS).add(w26.rearrange(HIGH_PAIRS_DOWN).blend(w37, HIGH_PAIRS));
        // last fold, u0 + u1: keys 0, 1, 2, 3 in the low half and 4, 5, 6, 7 in the high one
        u0415.rearrange(EVENS).blend(u2637.rearrange(EVENS), HIGH_PAIRS)
                .add(u0415.rearrange(ODDS).blend(u2637.rearrange(ODDS), HIGH_PAIRS))
                .intoArray(s, t);
    }

    /**
     * Keys {@code t} and {@code t + 1} (at {@code keys[kOff ..]} and {@code stride} further) against four query heads
     * {@code headDim} apart from {@code q[qOff]}, into {@code s0..s3[t]} and {@code [t + 1]}: per pair {@link #dot}'s
     * chain and sum, eight chains side by side.
     */
    private static void scoresTwoKeys(float[] q, int qOff, int headDim, float[] keys, int kOff, int stride,
                                      float[] s0, float[] s1, float[] s2, float[] s3, int t) {
        int q1 = qOff + headDim, q2 = q1 + headDim, q3 = q2 + headDim, k1 = kOff + stride;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        var b0 = FloatVector.zero(F);
        var b1 = FloatVector.zero(F);
        var b2 = FloatVector.zero(F);
        var b3 = FloatVector.zero(F);
        for (int i = 0; i < headDim; i += F.length()) {
            var k = FloatVector.fromArray(F, keys, kOff + i);
            var l = FloatVector.fromArray(F, keys, k1 + i);
            var x = FloatVector.fromArray(F, q, qOff + i);
            a0 = x.fma(k, a0);
            b0 = x.fma(l, b0);
            x = FloatVector.fromArray(F, q, q1 + i);
            a1 = x.fma(k, a1);
            b1 = x.fma(l, b1);
            x = FloatVector.fromArray(F, q, q2 + i);
            a2 = x.fma(k, a2);
            b2 = x.fma(l, b2);
            x = FloatVector.fromArray(F, q, q3 + i);
            a3 = x.fma(k, a3);
            b3 = x.fma(l, b3);
        }
        s0[t] = Lanes.sum(a0);
        s1[t] = Lanes.sum(a1);
        s2[t] = Lanes.sum(a2);
        s3[t] = Lanes.sum(a3);
        s0[t + 1] = Lanes.sum(b0);
        s1[t + 1] = Lanes.sum(b1);
        s2[t + 1] = Lanes.sum(b2);
        s3[t + 1] = Lanes.sum(b3);
    }

    /** {@link #scoresTwoKeys} for key t alone. */
    private static void scoresOneKey(float[] q, int qOff, int headDim, float[] keys, int kOff,
                                     float[] s0, float[] s1, float[] s2, float[] s3, int t) {
        s0[t] = dot(q, qOff, keys, kOff, headDim);
        s1[t] = dot(q, qOff + headDim, keys, kOff, headDim);
        s2[t] = dot(q, qOff + 2 * headDim, keys, kOff, headDim);
        s3[t] = dot(q, qOff + 3 * headDim, keys, kOff, headDim);
    }

    /**
     * Two vectors of each of four heads' outputs ({@code out[outOff ..]}, {@code headDim} apart) go on with the value
     * rows of one block ({@code values[slot * headDim + offset ..]}, {@code positions} of them, the first at position
     * {@code start}): each output one chain of fused multiply-adds over the positions in order, carried from block to
     * block through {@code out}. Eight chains, each value vector read once for the four heads.
     */
    private static void accumulateFour(float[] values, int positions, int headDim, int offset, int start,
                                       float[] w0, float[] w1, float[] w2, float[] w3, float[] out, int outOff) {
        int n = P.length();
        var o0 = FloatVector.fromArray(P, out, outOff);
        var o1 = FloatVector.fromArray(P, out, outOff + n);
        var o2 = FloatVector.fromArray(P, out, outOff + headDim);
        var o3 = FloatVector.fromArray(P, out, outOff + headDim + n);
        var o4 = FloatVector.fromArray(P, out, outOff + 2 * headDim);
        var o5 = FloatVector.fromArray(P, out, outOff + 2 * headDim + n);
        var o6 = FloatVector.fromArray(P, out, outOff + 3 * headDim);
        var o7 = FloatVector.fromArray(P, out, outOff + 3 * headDim + n);
        for (int j = 0; j < positions; j++) {
            int v = j * headDim + offset;
            int t = start + j;
            var x = FloatVector.fromArray(P, values, v);
            var y = FloatVector.fromArray(P, values, v + n);
            var p = FloatVector.broadcast(P, w0[t]);
            o0 = x.fma(p, o0);
            o1 = y.fma(p, o1);
            p = FloatVector.broadcast(P, w1[t]);
            o2 = x.fma(p, o2);
            o3 = y.fma(p, o3);
            p = FloatVector.broadcast(P, w2[t]);
            o4 = x.fma(p, o4);
            o5 = y.fma(p, o5);
            p = FloatVector.broadcast(P, w3[t]);
            o6 = x.fma(p, o6);
            o7 = y.fma(p, o7);
        }
        o0.intoArray(out, outOff);
        o1.intoArray(out, outOff + n);
        o2.intoArray(out, outOff + headDim);
        o3.intoArray(out, outOff + headDim + n);
        o4.intoArray(out, outOff + 2 * headDim);
        o5.intoArray(out, outOff + 2 * headDim + n);
        o6.intoArray(out, outOff + 3 * headDim);
        o7.intoArray(out, outOff + 3 * headDim + n);
    }

    /** Query head {@code head} of activation row {@code row} alone: heads that no others share a task with. */
    private void attendOne(int row, int head, float[] scores, float[] block) {
        int entry = entries[row];
        int headDim = config.headDim();
        int last = batch.position(entry);
        int[] table = cache.blockTable(batch.sequence(entry), layer);
        int blockSize = cache.blockSize();
        int qOff = row * config.queryLength() + head * headDim;
        int kvHead = head / config.groupSize();
        int firstBlock = firstBlockStart(last);
        for (int start = firstBlock; start <= last; start += blockSize) {
            int end = Math.min(last, start + blockSize - 1);
            cache.readKeys(layer, table[start / blockSize], kvHead, end - start + 1, block);
            int t = start;
            if (headDim % F.length() == 0) {
                for (; t + 3 <= end; t += 4) dot4(q, qOff, block, (t - start) * headDim, headDim, headDim, scores, t);
            }
            for (; t <= end; t++) scores[t] = dot(q, qOff, block, (t - start) * headDim, headDim);
        }
        weights(scores, firstBlock, config.conventions().firstVisible(layer, last), last);
        // eight vectors of the output at a time stay in registers while a block's value rows pass by: eight
        // independent chains of fused multiply-adds, each over the positions in order and carried from block to
        // block through out (laid out as q)
        Arrays.fill(out, qOff, qOff + headDim, 0f);
        for (int start = firstBlock; start <= last; start += blockSize) {
            int positions = Math.min(last + 1 - start, blockSize);
            cache.readValues(layer, table[start / blockSize], kvHead, positions, block);
            int i = 0;
            for (; i + 8 * F.length() <= headDim; i += 8 * F.length()) {
                accumulateValues(block, positions, headDim, i, start, scores, out, qOff + i);
            }
            // the rest of head sizes that are not a multiple of 64, a vector and then a lane at a time
            for (; i + F.length() <= headDim; i += F.length()) {
                var o = FloatVector.fromArray(F, out, qOff + i);
                for (int j = 0; j < positions; j++) {
                    o = FloatVector.fromArray(F, block, j * headDim + i).fma(FloatVector.broadcast(F, scores[start + j]), o);
                }
                o.intoArray(out, qOff + i);
            }
            for (; i < headDim; i++) {
                float o = out[qOff + i];
                for (int j = 0; j < positions; j++) o = Math.fma(scores[start + j], block[j * headDim + i], o);
                out[qOff + i] = o;
            }
        }
    }

    /**
     * Eight vectors of the weighted sum at {@code out[outOff ..]} go on with one block's value rows
     * ({@code values[slot * headDim + offset ..]}, {@code positions} of them from position {@code start}).
     */
    private static void accumulateValues(float[] values, int positions, int headDim, int offset, int start,
                                         float[] weights, float[] out, int outOff) {
        int n = F.length();
        var o0 = FloatVector.fromArray(F, out, outOff);
        var o1 = FloatVector.fromArray(F, out, outOff + n);
        var o2 = FloatVector.fromArray(F, out, outOff + 2 * n);
        var o3 = FloatVector.fromArray(F, out, outOff + 3 * n);
        var o4 = FloatVector.fromArray(F, out, outOff + 4 * n);
        var o5 = FloatVector.fromArray(F, out, outOff + 5 * n);
        var o6 = FloatVector.fromArray(F, out, outOff + 6 * n);
        var o7 = FloatVector.fromArray(F, out, outOff + 7 * n);
        for (int j = 0; j < positions; j++) {
            var p = FloatVector.broadcast(F, weights[start + j]);
            int v = j * headDim + offset;
            o0 = FloatVector.fromArray(F, values, v).fma(p, o0);
            o1 = FloatVector.fromArray(F, values, v + n).fma(p, o1);
            o2 = FloatVector.fromArray(F, values, v + 2 * n).fma(p, o2);
            o3 = FloatVector.fromArray(F, values, v + 3 * n).fma(p, o3);
            o4 = FloatVector.fromArray(F, values, v + 4 * n).fma(p, o4);
            o5 = FloatVector.fromArray(F, values, v + 5 * n).fma(p, o5);
            o6 = FloatVector.fromArray(F, values, v + 6 * n).fma(p, o6);
            o7 = FloatVector.fromArray(F, values, v + 7 * n).fma(p, o7);
        }
        o0.intoArray(out, outOff);
        o1.intoArray(out, outOff + n);
        o2.intoArray(out, outOff + 2 * n);
        o3.intoArray(out, outOff + 3 * n);
        o4.intoArray(out, outOff + 4 * n);
        o5.intoArray(out, outOff + 5 * n);
        o6.intoArray(out, outOff + 6 * n);
        o7.intoArray(out, outOff + 7 * n);
    }

    /**
     * {@link #dot} of {@code a} with four rows of {@code b}, {@code stride} apart, into {@code out[at .. at + 3]}:
     * the same operations for each row as {@link #dot} (for {@code n} a multiple of the vector length),
     * interleaved so that four chains of multiply-adds are in flight instead of one.
     */
    private static void dot4(float[] a, int aOff, float[] b, int bOff, int stride, int n, float[] out, int at) {
        var s0 = FloatVector.zero(F);
        var s1 = FloatVector.zero(F);
        var s2 = FloatVector.zero(F);
        var s3 = FloatVector.zero(F);
        for (int i = 0; i < n; i += F.length()) {
            var x = FloatVector.fromArray(F, a, aOff + i);
            s0 = x.fma(FloatVector.fromArray(F, b, bOff + i), s0);
            s1 = x.fma(FloatVector.fromArray(F, b, bOff + stride + i), s1);
            s2 = x.fma(FloatVector.fromArray(F, b, bOff + 2 * stride + i), s2);
            s3 = x.fma(FloatVector.fromArray(F, b, bOff + 3 * stride + i), s3);
        }
        out[at] = Lanes.sum(s0);
        out[at + 1] = Lanes.sum(s1);
        out[at + 2] = Lanes.sum(s2);
        out[at + 3] = Lanes.sum(s3);
    }

    /** {@code a[aOff ..] . b[bOff ..]} over {@code n} floats. */
    private static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        int bound = F.loopBound(n);
        int i = 0;
        float sum = 0;
        if (bound > 0) {
            var acc = FloatVector.zero(F);
            for (; i < bound; i += F.length()) acc = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), acc);
            sum = Lanes.sum(acc); // fixed order: the same bits whether or not the JIT compiled this
        }
        for (; i < n; i++) sum += a[aOff + i] * b[bOff + i];
        return sum;
    }

    /** Rounded to the nearest half (F16) and back. */
    static float roundToHalf(float v) {
        return Float.float16ToFloat(Float.floatToFloat16(v));
    }
}
