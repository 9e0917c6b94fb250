package dev.inferd.engine.model;

import dev.inferd.engine.batch.Batch;
import dev.inferd.engine.batch.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tensor.CopyStore;
import dev.inferd.engine.tensor.Lanes;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.WorkerPool;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The pre-norm decoder shared by the {@code llama} and {@code qwen2} GGUF architectures: RMSNorm,
 * grouped-query attention with RoPE (and optional q/k/v biases), SwiGLU feed-forward, tied or
 * separate output head. Activations for a whole batch go through each weight matrix at once, so the
 * weights are read once per batch, not once per token.
 *
 * <p>The activation rows hold the batch's prompt tokens first, then its generated tokens, whatever the
 * entries' order: the weight matrices multiply the first kind with a tiled product and the second
 * with per-row kernels (see {@link WeightMatrix#multiply(float[], int, float[], int)}).
 */
public final class TransformerModel implements Model {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private final ModelConfig config;
    private final int maxBatch;
    private final WeightMatrix tokenEmbedding;
    private final LayerWeights[] layers;
    /** Per layer, the matrices that multiply the same normed input: query, key and value; gate and up. */
    private final WeightMatrix[][] queryKeyValue;
    private final WeightMatrix[][] gateUp;
    private final float[] outputNorm;
    private final WeightMatrix output;
    private final Rope rope;
    private final Scratch scratch;
    private final Logits logits;
    private final WorkerPool pool = WorkerPool.shared();
    private final AttentionTask attentionTask = new AttentionTask();

    public TransformerModel(GGUFFile gguf, ModelConfig config, int maxBatch, CopyStore copies) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, was " + maxBatch);
        this.config = config;
        this.maxBatch = maxBatch;
        var w = new WeightLoader(gguf, copies);
        int dim = config.embeddingLength();
        int vocab = config.vocabSize();
        tokenEmbedding = w.matrix("token_embd.weight", vocab, dim);
        layers = new LayerWeights[config.blockCount()];
        for (int l = 0; l < layers.length; l++) layers[l] = loadLayer(w, "blk." + l + ".");
        queryKeyValue = new WeightMatrix[layers.length][];
        gateUp = new WeightMatrix[layers.length][];
        for (int l = 0; l < layers.length; l++) {
            queryKeyValue[l] = new WeightMatrix[] {layers[l].query(), layers[l].key(), layers[l].value()};
            gateUp[l] = new WeightMatrix[] {layers[l].ffnGate(), layers[l].ffnUp()};
        }
        outputNorm = w.vector("output_norm.weight", dim);
        // Models with tied embeddings (SmolLM2, Qwen2.5 0.5B, Llama 3.2 1B) ship no output.weight.
        output = w.has("output.weight") ? w.matrix("output.weight", vocab, dim) : tokenEmbedding;
        rope = new Rope(config, w.optionalVector("rope_freqs.weight", config.ropeDimensionCount() / 2));
        scratch = new Scratch(config, maxBatch, rope.pairs());
        logits = new Logits(vocab);
    }

    private LayerWeights loadLayer(WeightLoader w, String p) {
        int dim = config.embeddingLength();
        int q = config.queryLength();
        int kv = config.kvLength();
        int ffn = config.feedForwardLength();
        return new LayerWeights(
                w.vector(p + "attn_norm.weight", dim),
                w.matrix(p + "attn_q.weight", q, dim),
                w.matrix(p + "attn_k.weight", kv, dim),
                w.matrix(p + "attn_v.weight", kv, dim),
                w.optionalVector(p + "attn_q.bias", q),
                w.optionalVector(p + "attn_k.bias", kv),
                w.optionalVector(p + "attn_v.bias", kv),
                w.matrix(p + "attn_output.weight", dim, q),
                w.vector(p + "ffn_norm.weight", dim),
                w.matrix(p + "ffn_gate.weight", ffn, dim),
                w.matrix(p + "ffn_up.weight", ffn, dim),
                w.matrix(p + "ffn_down.weight", dim, ffn));
    }

    @Override public ModelConfig config() { return config; }

    @Override public int maxBatch() { return maxBatch; }

    @Override
    public List<WeightMatrix> smallestMatrixOfEachType() {
        Map<GGMLType, WeightMatrix> smallest = new EnumMap<>(GGMLType.class);
        List<WeightMatrix> all = new ArrayList<>();
        for (LayerWeights lw : layers) all.addAll(lw.matrices());
        all.add(output); // the token embedding is only read row by row, unless it is the output too
        for (WeightMatrix m : all) {
            smallest.merge(m.type(), m, (a, b) -> (long) b.rows() * b.cols() < (long) a.rows() * a.cols() ? b : a);
        }
        return List.copyOf(smallest.values());
    }

    @Override
    public Logits forward(Batch batch, KVCache cache) {
        int n = batch.size();
        checkInputs(batch, cache);
        var s = scratch;
        int dim = config.embeddingLength();
        int qLen = config.queryLength();
        int kvLen = config.kvLength();
        int pairs = rope.pairs();
        int blockSize = cache.blockSize();
        int prompt = s.order(batch);
        for (int i = 0; i < n; i++) {
            int e = s.entries[i];
            s.cells[i] = cache.prepareWrite(batch.sequence(e), batch.position(e));
            tokenEmbedding.dequantizeRow(batch.token(e), s.x, i * dim);
            rope.angles(batch.position(e), s.cos, s.sin, i * pairs);
        }
        for (int l = 0; l < layers.length; l++) {
            LayerWeights lw = layers[l];
            rmsNorm(s.x, s.xb, n, dim, lw.attentionNorm());
            WeightMatrix.multiplyEach(queryKeyValue[l], s.xb, n, s.queryKeyValue, prompt);
            addBias(s.q, n, lw.queryBias());
            addBias(s.k, n, lw.keyBias());
            addBias(s.v, n, lw.valueBias());
            for (int i = 0; i < n; i++) {
                rope.rotate(s.q, i * qLen, config.headCount(), s.cos, s.sin, i * pairs);
                roundToHalf(s.q, i * qLen, qLen);
                rope.rotate(s.k, i * kvLen, config.headCountKv(), s.cos, s.sin, i * pairs);
                int block = s.cells[i] / blockSize;
                int at = (s.cells[i] % blockSize) * kvLen;
                store(s.k, i * kvLen, cache.keyBlock(l, block), at, kvLen);
                store(s.v, i * kvLen, cache.valueBlock(l, block), at, kvLen);
            }
            // Every entry's keys are stored before any attends, so entries of one sequence in this
            // batch see each other (causally, by position).
            attentionTask.prepare(batch, cache, l, s.scores(pool.threads(), cache.contextLength()));
            pool.parallelFor(n * config.headCount(), attentionTask);
            lw.attentionOutput().multiply(s.attention, n, s.xb, prompt);
            addInPlace(s.x, s.xb, n * dim);
            rmsNorm(s.x, s.xb, n, dim, lw.ffnNorm());
            WeightMatrix.multiplyEach(gateUp[l], s.xb, n, s.gateUp, prompt);
            swiglu(s.gate, s.up, n * config.feedForwardLength());
            lw.ffnDown().multiply(s.gate, n, s.xb, prompt);
            addInPlace(s.x, s.xb, n * dim);
        }
        for (int e = 0; e < n; e++) cache.markWritten(batch.sequence(e), batch.position(e));
        int rows = batch.logitsCount();
        logits.resize(rows);
        for (int i = 0; i < n; i++) {
            int row = batch.logitsRow(s.entries[i]);
            if (row >= 0) rmsNormRow(s.x, i * dim, s.xb, row * dim, dim, outputNorm);
        }
        // Every logits row, a prompt's last token's too, takes the row kernels: one path for the head,
        // whatever the roles of the batch's other entries.
        if (rows > 0) output.multiply(s.xb, rows, logits.data());
        return logits;
    }

    /**
     * One query head of one entry (in activation row {@code row}) against its sequence's keys and
     * values at positions 0..pos, read through the sequence's block table (position {@code t} is slot
     * {@code t % blockSize} of block {@code table[t / blockSize]}).
     */
    private void attend(Batch batch, KVCache cache, int layer, int row, int head, float[] scores) {
        int entry = scratch.entries[row];
        int headDim = config.headDim();
        int kvLen = config.kvLength();
        int last = batch.position(entry);
        int[] table = cache.blockTable(batch.sequence(entry));
        int blockSize = cache.blockSize();
        float[] q = scratch.q;
        int qOff = row * config.queryLength() + head * headDim;
        int kvOff = (head / config.groupSize()) * headDim;
        float scale = (float) (1.0 / Math.sqrt(headDim));
        float max = Float.NEGATIVE_INFINITY;
        for (int start = 0; start <= last; start += blockSize) {
            float[] keys = cache.keyBlock(layer, table[start / blockSize]);
            int end = Math.min(last, start + blockSize - 1);
            int t = start;
            if (headDim % F.length() == 0) {
                for (; t + 3 <= end; t += 4) dot4(q, qOff, keys, (t - start) * kvLen + kvOff, kvLen, headDim, scores, t);
            }
            for (; t <= end; t++) scores[t] = dot(q, qOff, keys, (t - start) * kvLen + kvOff, headDim);
            for (t = start; t <= end; t++) {
                float score = scores[t] * scale;
                scores[t] = score;
                if (score > max) max = score;
            }
        }
        float inv = 1f / Lanes.softmaxNumerators(scores, last + 1, max);
        float[] out = scratch.attention;
        int oOff = row * config.queryLength() + head * headDim;
        for (int t = 0; t <= last; t++) scores[t] = roundToHalf(scores[t] * inv);
        // eight vectors of the output at a time stay in registers while every value row passes by: eight
        // independent chains of fused multiply-adds, each still over the positions in order
        int i = 0;
        for (; i + 8 * F.length() <= headDim; i += 8 * F.length()) accumulateValues(cache, layer, table, blockSize, last, kvLen, kvOff + i, scores, out, oOff + i);
        // the rest of head sizes that are not a multiple of 64, a vector and then a lane at a time
        for (; i + F.length() <= headDim; i += F.length()) {
            var o = FloatVector.zero(F);
            for (int t = 0; t <= last; t++) {
                float[] values = cache.valueBlock(layer, table[t / blockSize]);
                o = FloatVector.fromArray(F, values, (t % blockSize) * kvLen + kvOff + i).fma(FloatVector.broadcast(F, scores[t]), o);
            }
            o.intoArray(out, oOff + i);
        }
        for (; i < headDim; i++) {
            float o = 0f;
            for (int t = 0; t <= last; t++) {
                o = Math.fma(scores[t], cache.valueBlock(layer, table[t / blockSize])[(t % blockSize) * kvLen + kvOff + i], o);
            }
            out[oOff + i] = o;
        }
    }

    /** {@code out[outOff ..]}: eight vectors of the weighted sum of the value rows from {@code offset}, positions 0..last. */
    private static void accumulateValues(KVCache cache, int layer, int[] table, int blockSize, int last, int kvLen, int offset,
                                         float[] weights, float[] out, int outOff) {
        int n = F.length();
        var o0 = FloatVector.zero(F);
        var o1 = FloatVector.zero(F);
        var o2 = FloatVector.zero(F);
        var o3 = FloatVector.zero(F);
        var o4 = FloatVector.zero(F);
        var o5 = FloatVector.zero(F);
        var o6 = FloatVector.zero(F);
        var o7 = FloatVector.zero(F);
        for (int start = 0; start <= last; start += blockSize) {
            float[] values = cache.valueBlock(layer, table[start / blockSize]);
            int end = Math.min(last, start + blockSize - 1);
            for (int t = start; t <= end; t++) {
                var p = FloatVector.broadcast(F, weights[t]);
                int v = (t - start) * kvLen + offset;
                o0 = FloatVector.fromArray(F, values, v).fma(p, o0);
                o1 = FloatVector.fromArray(F, values, v + n).fma(p, o1);
                o2 = FloatVector.fromArray(F, values, v + 2 * n).fma(p, o2);
                o3 = FloatVector.fromArray(F, values, v + 3 * n).fma(p, o3);
                o4 = FloatVector.fromArray(F, values, v + 4 * n).fma(p, o4);
                o5 = FloatVector.fromArray(F, values, v + 5 * n).fma(p, o5);
                o6 = FloatVector.fromArray(F, values, v + 6 * n).fma(p, o6);
                o7 = FloatVector.fromArray(F, values, v + 7 * n).fma(p, o7);
            }
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

    /*
     * Attention runs at llama.cpp's default precision: its KV cache holds F16, and ggml's CPU matmuls
     * against F16 round the other operand (the query, the attention weights) to F16 too. Doing the
     * same brings our log-probabilities on stories260K to within 2e-3 (chosen tokens) of llama.cpp's,
     * where a plain F32 attention drifts several times further.
     */
    private static float roundToHalf(float v) {
        return Float.float16ToFloat(Float.floatToFloat16(v));
    }

    private static void roundToHalf(float[] v, int offset, int length) {
        for (int i = offset; i < offset + length; i++) v[i] = roundToHalf(v[i]);
    }

    /** Copies keys or values into the cache at F16 precision (see {@link #roundToHalf(float)}). */
    private static void store(float[] src, int srcOff, float[] dst, int dstOff, int len) {
        for (int i = 0; i < len; i++) dst[dstOff + i] = roundToHalf(src[srcOff + i]);
    }

    private void checkInputs(Batch batch, KVCache cache) {
        if (batch.size() > maxBatch) {
            throw new IllegalArgumentException("batch of " + batch.size() + " entries exceeds this model's maxBatch " + maxBatch);
        }
        if (cache.layers() != config.blockCount() || cache.kvLength() != config.kvLength()) {
            throw new IllegalArgumentException("KV cache shaped for " + cache.layers() + " layers x " + cache.kvLength()
                    + ", model needs " + config.blockCount() + " x " + config.kvLength());
        }
        for (int e = 0; e < batch.size(); e++) {
            int token = batch.token(e);
            if (token >= config.vocabSize()) {
                throw new IllegalArgumentException("token " + token + " is outside the vocabulary of " + config.vocabSize());
            }
            int seq = batch.sequence(e);
            if (seq >= cache.maxSequences()) {
                throw new IllegalArgumentException("sequence " + seq + " is outside the cache's " + cache.maxSequences());
            }
            if (batch.position(e) >= cache.contextLength()) {
                throw new IllegalArgumentException("position " + batch.position(e) + " is beyond the context length "
                        + cache.contextLength());
            }
        }
    }

    private void rmsNorm(float[] in, float[] out, int rows, int dim, float[] weight) {
        for (int r = 0; r < rows; r++) rmsNormRow(in, r * dim, out, r * dim, dim, weight);
    }

    private void rmsNormRow(float[] in, int inOff, float[] out, int outOff, int dim, float[] weight) {
        int bound = F.loopBound(dim);
        int i = 0;
        double sumSquares = 0;
        if (bound > 0) {
            var acc = FloatVector.zero(F);
            for (; i < bound; i += F.length()) {
                var v = FloatVector.fromArray(F, in, inOff + i);
                acc = v.fma(v, acc);
            }
            sumSquares = Lanes.sum(acc);
        }
        for (; i < dim; i++) {
            float v = in[inOff + i];
            sumSquares += v * v;
        }
        float scale = (float) (1.0 / Math.sqrt((float) (sumSquares / dim) + config.rmsNormEps()));
        i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector.fromArray(F, in, inOff + i).mul(scale).mul(FloatVector.fromArray(F, weight, i)).intoArray(out, outOff + i);
        }
        for (; i < dim; i++) out[outOff + i] = in[inOff + i] * scale * weight[i];
    }

    private static void addBias(float[] rows, int n, float[] bias) {
        if (bias == null) return;
        int len = bias.length;
        for (int r = 0; r < n; r++) {
            int off = r * len;
            for (int i = 0; i < len; i++) rows[off + i] += bias[i];
        }
    }

    private static void addInPlace(float[] acc, float[] add, int len) {
        for (int i = 0; i < len; i++) acc[i] += add[i];
    }

    /** {@code gate = silu(gate) * up}. */
    /**
     * {@code gate = silu(gate) * up}, {@code silu(g) = g / (1 + e^-g)}, with e^-|g| from
     * {@link Lanes#expNonPositive} ({@code g e^g / (1 + e^g)} for negative g, which cannot overflow):
     * {@code lanewise(EXP)}'s intrinsic and its Java fallback differ in the last bits, so the same request
     * gave other tokens depending on whether the JIT had compiled this yet (a 1B Q4_K_M file, greedy).
     */
    private static void swiglu(float[] gate, float[] up, int len) {
        int i = 0;
        for (int bound = F.loopBound(len); i < bound; i += F.length()) {
            silu(FloatVector.fromArray(F, gate, i)).mul(FloatVector.fromArray(F, up, i)).intoArray(gate, i);
        }
        if (i < len) {
            var inRange = F.indexInRange(i, len);
            silu(FloatVector.fromArray(F, gate, i, inRange)).mul(FloatVector.fromArray(F, up, i, inRange)).intoArray(gate, i, inRange);
        }
    }

    private static FloatVector silu(FloatVector g) {
        var e = Lanes.expNonPositive(g.abs().neg());
        return g.mul(FloatVector.broadcast(F, 1f).blend(e, g.compare(VectorOperators.LT, 0f))).div(e.add(1f));
    }

    /** One (entry, head) of attention per pool task; a reused object, so a layer allocates no lambda. */
    private final class AttentionTask implements WorkerPool.Task {
        private Batch batch;
        private KVCache cache;
        private int layer;
        private float[][] scores;

        void prepare(Batch batch, KVCache cache, int layer, float[][] scores) {
            this.batch = batch;
            this.cache = cache;
            this.layer = layer;
            this.scores = scores;
        }

        @Override
        public void run(int task, int worker) {
            int heads = config.headCount();
            attend(batch, cache, layer, task / heads, task % heads, scores[worker]);
        }
    }

    /** Activations for {@code maxBatch} entries, allocated once. */
    private static final class Scratch {
        final float[] x;         // residual stream
        final float[] xb;        // normed input / projection output
        final float[] q;
        final float[] k;
        final float[] v;
        final float[] attention; // attention output, per query head
        final float[] gate;
        final float[] up;
        /** The outputs of {@link #queryKeyValue} and {@link #gateUp}, in their order. */
        final float[][] queryKeyValue;
        final float[][] gateUp;
        final float[] cos;
        final float[] sin;
        final int[] cells;       // where each row's keys and values go: block * blockSize + slot
        final int[] entries;     // the batch entry in each activation row: prompt tokens first
        private float[][] scores = new float[0][];

        Scratch(ModelConfig c, int maxBatch, int pairs) {
            x = new float[maxBatch * c.embeddingLength()];
            xb = new float[maxBatch * Math.max(c.embeddingLength(), c.queryLength())];
            q = new float[maxBatch * c.queryLength()];
            k = new float[maxBatch * c.kvLength()];
            v = new float[maxBatch * c.kvLength()];
            attention = new float[maxBatch * c.queryLength()];
            gate = new float[maxBatch * c.feedForwardLength()];
            up = new float[maxBatch * c.feedForwardLength()];
            queryKeyValue = new float[][] {q, k, v};
            gateUp = new float[][] {gate, up};
            cos = new float[maxBatch * pairs];
            sin = new float[maxBatch * pairs];
            cells = new int[maxBatch];
            entries = new int[maxBatch];
        }

        /** Fills {@link #entries}: the prompt tokens in batch order, then the generated ones; returns how many are prompt tokens. */
        int order(Batch batch) {
            int prompt = batch.promptCount();
            int nextPrompt = 0;
            int nextGenerated = prompt;
            for (int e = 0; e < batch.size(); e++) entries[batch.isPromptToken(e) ? nextPrompt++ : nextGenerated++] = e;
            return prompt;
        }

        /** Per worker, attention weights over a whole context; grows once to the largest cache used. */
        float[][] scores(int workers, int contextLength) {
            if (scores.length < workers || scores[0].length < contextLength) {
                scores = new float[workers][contextLength];
            }
            return scores;
        }
    }
}
