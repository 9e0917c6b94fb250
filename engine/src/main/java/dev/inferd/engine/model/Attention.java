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
 * stays in L1 while its scores and weighted values are computed, and the kernels below read floats.
 *
 * <p>Two passes over the blocks, with nothing as long as the context written per row: the first computes a block's
 * scores into a tile and keeps each head's running maximum and sum of {@code e^(score - max)} (the sum scaled by
 * {@code e^(old - new)} when the maximum rises, as flash attention does); the second computes the block's scores
 * again, turns them into weights with the final maximum and sum, and adds the weighted values to the output. A run
 * that sees at most {@link #KEPT_POSITIONS} positions keeps its scores between the passes instead (256 KB a worker,
 * in L2). Whole rows of scores kept for a 16k-token context were 2 MB a worker, more than L2, written and then read
 * twice more while the cores waited on memory; and computing the scores twice keeps the weights llama.cpp's
 * ({@code softmax} over the row, then rounded to halves), which an online softmax's weights, rounded against a
 * running maximum, are not: they moved the greedy tokens of the k-quant reference models off llama.cpp's.
 *
 * <p>A task takes up to {@link #HEADS} query heads that share a key-value head (grouped-query attention), and
 * reads each key and value once for all of them, for a run of up to {@link #ROWS} rows of one sequence at
 * consecutive positions (a prompt's), which share their keys and values but for the last few: each block is widened
 * once a pass for the run and read from L1 by every row and head. Groups of query heads that are not a multiple of
 * four (Qwen2.5-0.5B's seven) take the same path, their last heads one at a time over the same widened block. Each
 * head's numbers are still those of a head alone: its scores are the same dot products, lane for lane, its maximum
 * and sum change block by block in the same order, its weighted sum of values is the same chain per output over
 * the positions in order, so a row's result does not depend on which heads or rows share its task, nor on whether
 * its scores were kept or computed again, nor on whether its prompt came in one batch or a token at a time.
 *
 * <p>Attention runs near llama.cpp's precision: its KV cache holds F16, and ggml's CPU kernels against F16 round the
 * other operand (the query, the attention weights) to F16 too. Doing the same (the softmax's weights are rounded to
 * halves before they weigh the values) keeps our log-probabilities on stories260K within a few 1e-3 of llama.cpp's,
 * where a plain F32 attention drifts several times further.
 */
final class Attention implements WorkerPool.Task {
    /** The scores' dot products take 8 lanes, whose sums in a fixed order ({@link Lanes#sum}) are the scores' bits. */
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    /** The weighted sums of values: each output is one chain over the positions whatever the vector's width. */
    private static final VectorSpecies<Float> P = FloatVector.SPECIES_PREFERRED;
    /** Query heads a task takes together, each key and value row read once for them. */
    static final int HEADS = 4;
    /** Rows of one sequence a task takes together, each block widened once for them. */
    static final int ROWS = 16;
    /**
     * Positions whose scores a task keeps between its two passes: {@link #ROWS} {@code x} {@link #HEADS} rows of
     * them are 256 KB, in L2. A run that sees more computes its scores again in the second pass.
     */
    static final int KEPT_POSITIONS = 1024;

    private final ModelConfig config;
    private final WorkerPool pool;
    /** Query heads a task takes: {@link #HEADS}, or 1 where a test compares the two paths. */
    private final int heads;
    /** Per worker, its buffers; grown when a cache with larger blocks or heads comes. */
    private Scratch[] scratch = new Scratch[0];
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

    /**
     * A worker's buffers, indexed by {@code at = rowInRun * HEADS + head}: one block of one key-value head's keys,
     * then of its values, as floats ({@code block[slot * headDim + i]}); a run's scores and then weights, either all
     * of them ({@code kept[at * KEPT_POSITIONS + t - firstBlock]}) or a block's ({@code tile[at * blockSize + slot]});
     * and each head's maximum score and sum of {@code e^(score - max)} (then its inverse).
     */
    private record Scratch(float[] block, float[] kept, float[] tile, float[] max, float[] sum) {
        Scratch(int blockSize, int headDim) {
            this(new float[blockSize * headDim], new float[ROWS * HEADS * KEPT_POSITIONS], new float[ROWS * HEADS * blockSize],
                    new float[ROWS * HEADS], new float[ROWS * HEADS]);
        }

        boolean fits(int blockSize, int headDim) {
            return block.length >= blockSize * headDim && tile.length >= ROWS * HEADS * blockSize;
        }
    }

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
        if (scratch.length < workers || !scratch[0].fits(cache.blockSize(), cache.headDim())) {
            scratch = new Scratch[workers];
            for (int w = 0; w < workers; w++) scratch[w] = new Scratch(cache.blockSize(), cache.headDim());
        }
        this.batch = batch;
        this.cache = cache;
        this.layer = layer;
        this.entries = entries;
        this.q = q;
        this.out = out;
        splitIntoRuns(rows);
        try {
            pool.parallelFor(runs * tasksPerRun(), this);
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
        // the runs last in the batch see the most positions: handed out first, they do not leave one worker
        // finishing a long task while the other waits
        int perRun = tasksPerRun();
        int chunks = perRun / config.headCountKv();
        int reversed = runs * perRun - 1 - task;
        int run = reversed / perRun;
        int kvHead = reversed % perRun / chunks;
        int first = kvHead * config.groupSize() + reversed % chunks * heads;
        int count = Math.min(heads, (kvHead + 1) * config.groupSize() - first);
        attend(runStarts[run], runStarts[run + 1], first, count, scratch[worker]);
    }

    /**
     * Query heads {@code first .. first + count - 1}, which share a key-value head, of rows {@code from .. to - 1}, one
     * sequence at consecutive positions. Two passes over their blocks: the first finds each head's maximum score and
     * sum of {@code e^(score - max)}; the second turns the scores into weights and adds up the weighted values. The
     * scores are kept between the passes where the run sees at most {@link #KEPT_POSITIONS} positions, and computed
     * again, a block at a time, where it sees more.
     */
    private void attend(int from, int to, int first, int count, Scratch s) {
        int headDim = config.headDim();
        int blockSize = cache.blockSize();
        int queryLength = config.queryLength();
        int[] table = cache.blockTable(batch.sequence(entries[from]), layer);
        int last = batch.position(entries[to - 1]); // the run's last row sees every position the others see
        int kvHead = first / config.groupSize();
        boolean fourHeads = count == HEADS && headDim % (2 * P.length()) == 0;
        for (int row = from; row < to; row++) {
            int at = (row - from) * HEADS;
            Arrays.fill(s.max, at, at + count, Float.NEGATIVE_INFINITY);
            Arrays.fill(s.sum, at, at + count, 0f);
        }
        // the run's first row sees the earliest position of a sliding window: blocks before its block are not read
        int firstBlock = firstBlockStart(batch.position(entries[from]));
        boolean keep = last + 1 - firstBlock <= KEPT_POSITIONS;
        float[] scores = keep ? s.kept : s.tile;
        for (int start = firstBlock; start <= last; start += blockSize) {
            cache.readKeys(layer, table[start / blockSize], kvHead, Math.min(last + 1 - start, blockSize), s.block);
            for (int row = from; row < to; row++) {
                int position = batch.position(entries[row]);
                int end = Math.min(position, start + blockSize - 1);
                int visible = Math.max(start, config.conventions().firstVisible(layer, position));
                if (end < visible) continue;
                for (int h = 0; h < count; h++) {
                    int at = (row - from) * HEADS + h;
                    int offset = keep ? at * KEPT_POSITIONS - firstBlock : at * blockSize - start;
                    score(row, first + h, start, visible, end, s.block, scores, offset);
                    observe(s, at, scores, offset + visible, offset + end + 1);
                }
            }
        }
        for (int row = from; row < to; row++) {
            int qOff = row * queryLength + first * headDim;
            Arrays.fill(out, qOff, qOff + count * headDim, 0f);
            int at = (row - from) * HEADS;
            for (int h = 0; h < count; h++) s.sum[at + h] = 1f / s.sum[at + h];
        }
        for (int start = firstBlock; start <= last; start += blockSize) {
            int block = table[start / blockSize];
            int positions = Math.min(last + 1 - start, blockSize);
            if (!keep) cache.readKeys(layer, block, kvHead, positions, s.block);
            for (int row = from; row < to; row++) {
                int position = batch.position(entries[row]);
                int end = Math.min(position, start + blockSize - 1);
                int visible = Math.max(start, config.conventions().firstVisible(layer, position));
                if (end < visible) continue;
                for (int h = 0; h < count; h++) {
                    int at = (row - from) * HEADS + h;
                    int offset = keep ? at * KEPT_POSITIONS - firstBlock : at * blockSize - start;
                    if (!keep) score(row, first + h, start, visible, end, s.block, scores, offset);
                    weigh(scores, offset + visible, offset + end + 1, s.max[at], s.sum[at]);
                }
            }
            cache.readValues(layer, block, kvHead, positions, s.block);
            for (int row = from; row < to; row++) {
                int position = batch.position(entries[row]);
                int end = Math.min(position, start + blockSize - 1);
                int visible = Math.max(start, config.conventions().firstVisible(layer, position));
                if (end < visible) continue;
                int qOff = row * queryLength + first * headDim;
                int at = (row - from) * HEADS;
                int stride = keep ? KEPT_POSITIONS : blockSize;
                // the weights of position t are at scores[w + t], those of the next heads stride further
                int w = (keep ? at * KEPT_POSITIONS - firstBlock : at * blockSize - start) + start;
                int slot = visible - start, slots = end + 1 - start;
                if (fourHeads) {
                    for (int i = 0; i < headDim; i += 2 * P.length()) {
                        accumulateFour(s.block, slot, slots, headDim, i, scores, w, stride, out, qOff + i);
                    }
                } else {
                    for (int h = 0; h < count; h++) {
                        accumulateOne(s.block, slot, slots, headDim, scores, w + h * stride, out, qOff + h * headDim);
                    }
                }
            }
        }
    }

    /**
     * Query head {@code head} of activation row {@code row} against the keys of positions {@code visible .. end}
     * (in {@code keys} from slot {@code visible - start}), into {@code scores[offset + t]}: soft-capped where the
     * model caps them, and scaled.
     */
    private void score(int row, int head, int start, int visible, int end, float[] keys, float[] scores, int offset) {
        int headDim = config.headDim();
        int qOff = row * config.queryLength() + head * headDim;
        int t = visible;
        if (headDim % F.length() == 0) {
            for (; t + 7 <= end; t += 8) scoresEightKeys(q, qOff, headDim, keys, (t - start) * headDim, headDim, scores, offset + t);
        }
        for (; t <= end; t++) scores[offset + t] = dot(q, qOff, keys, (t - start) * headDim, headDim);
        var conventions = config.conventions();
        float cap = conventions.attentionSoftcap();
        if (cap > 0) SoftCap.apply(scores, offset + visible, offset + end + 1, cap);
        float scale = conventions.queryScale() > 0 ? 1f : (float) (1.0 / Math.sqrt(headDim));
        for (int i = offset + visible; i <= offset + end; i++) scores[i] *= scale;
    }

    /** Where the first block a query at {@code position} reads starts: its sliding window's, else 0. */
    private int firstBlockStart(int position) {
        int visible = config.conventions().firstVisible(layer, position);
        return visible - visible % cache.blockSize();
    }

    /**
     * The first pass's step for one head over one block's scores {@code scores[from .. to - 1]}: the head's maximum
     * raised to theirs if higher (its sum so far scaled by {@code e^(old - new)} to match), and their
     * {@code e^(score - max)} added to its sum.
     */
    private static void observe(Scratch s, int at, float[] scores, int from, int to) {
        float blockMax = Float.NEGATIVE_INFINITY;
        for (int i = from; i < to; i++) blockMax = Math.max(blockMax, scores[i]);
        float max = s.max[at];
        float sum = s.sum[at];
        if (blockMax > max) {
            // e^(-infinity) is 0: the first block's factor, which scales the zero the sum starts from
            sum *= Lanes.expNonPositive(FloatVector.broadcast(F, max - blockMax)).lane(0);
            max = blockMax;
            s.max[at] = max;
        }
        var total = FloatVector.zero(F);
        for (int i = from; i < to; i += F.length()) {
            var inRange = F.indexInRange(i, to);
            total = total.add(Lanes.expNonPositive(FloatVector.fromArray(F, scores, i, inRange).sub(max)).blend(0f, inRange.not()));
        }
        s.sum[at] = sum + Lanes.sum(total);
    }

    /**
     * The second pass's step: the scores {@code scores[from .. to - 1]} replaced by their attention weights,
     * {@code e^(score - max) / sum} ({@code inverseSum} is {@code 1 / sum}) rounded to halves.
     */
    private static void weigh(float[] scores, int from, int to, float max, float inverseSum) {
        for (int i = from; i < to; i += F.length()) {
            var inRange = F.indexInRange(i, to);
            Lanes.expNonPositive(FloatVector.fromArray(F, scores, i, inRange).sub(max)).mul(inverseSum).intoArray(scores, i, inRange);
        }
        for (int i = from; i < to; i++) scores[i] = roundToHalf(scores[i]);
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
     * Two vectors of each of four heads' outputs ({@code out[outOff ..]}, {@code headDim} apart) go on with the value
     * rows of slots {@code from .. to - 1} of one block ({@code values[slot * headDim + offset ..]}), weighted by
     * {@code weights[w + slot]} for the first head and {@code stride} further for each next: each output one chain of
     * fused multiply-adds over the positions in order, carried from block to block through {@code out}. Eight
     * chains, each value vector read once for the four heads.
     */
    private static void accumulateFour(float[] values, int from, int to, int headDim, int offset, float[] weights, int w,
                                       int stride, float[] out, int outOff) {
        int n = P.length();
        int w1 = w + stride, w2 = w1 + stride, w3 = w2 + stride;
        var o0 = FloatVector.fromArray(P, out, outOff);
        var o1 = FloatVector.fromArray(P, out, outOff + n);
        var o2 = FloatVector.fromArray(P, out, outOff + headDim);
        var o3 = FloatVector.fromArray(P, out, outOff + headDim + n);
        var o4 = FloatVector.fromArray(P, out, outOff + 2 * headDim);
        var o5 = FloatVector.fromArray(P, out, outOff + 2 * headDim + n);
        var o6 = FloatVector.fromArray(P, out, outOff + 3 * headDim);
        var o7 = FloatVector.fromArray(P, out, outOff + 3 * headDim + n);
        for (int j = from; j < to; j++) {
            int v = j * headDim + offset;
            var x = FloatVector.fromArray(P, values, v);
            var y = FloatVector.fromArray(P, values, v + n);
            var p = FloatVector.broadcast(P, weights[w + j]);
            o0 = x.fma(p, o0);
            o1 = y.fma(p, o1);
            p = FloatVector.broadcast(P, weights[w1 + j]);
            o2 = x.fma(p, o2);
            o3 = y.fma(p, o3);
            p = FloatVector.broadcast(P, weights[w2 + j]);
            o4 = x.fma(p, o4);
            o5 = y.fma(p, o5);
            p = FloatVector.broadcast(P, weights[w3 + j]);
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

    /**
     * {@link #accumulateFour}'s numbers for one head of any size: each output's chain over slots {@code from .. to - 1}
     * weighted by {@code weights[w + slot]}; two vectors at a time, then one, then lane by lane (a fused multiply-add
     * gives the same bits in any lane).
     */
    private static void accumulateOne(float[] values, int from, int to, int headDim, float[] weights, int w,
                                      float[] out, int outOff) {
        int n = P.length();
        int i = 0;
        for (; i + 2 * n <= headDim; i += 2 * n) {
            var o0 = FloatVector.fromArray(P, out, outOff + i);
            var o1 = FloatVector.fromArray(P, out, outOff + i + n);
            for (int j = from; j < to; j++) {
                var p = FloatVector.broadcast(P, weights[w + j]);
                int v = j * headDim + i;
                o0 = FloatVector.fromArray(P, values, v).fma(p, o0);
                o1 = FloatVector.fromArray(P, values, v + n).fma(p, o1);
            }
            o0.intoArray(out, outOff + i);
            o1.intoArray(out, outOff + i + n);
        }
        for (; i + F.length() <= headDim; i += F.length()) {
            var o = FloatVector.fromArray(F, out, outOff + i);
            for (int j = from; j < to; j++) {
                o = FloatVector.fromArray(F, values, j * headDim + i).fma(FloatVector.broadcast(F, weights[w + j]), o);
            }
            o.intoArray(out, outOff + i);
        }
        for (; i < headDim; i++) {
            float o = out[outOff + i];
            for (int j = from; j < to; j++) o = Math.fma(values[j * headDim + i], weights[w + j], o);
            out[outOff + i] = o;
        }
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
