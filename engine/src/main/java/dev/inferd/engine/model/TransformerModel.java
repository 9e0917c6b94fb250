package dev.inferd.engine.model;

import dev.inferd.engine.tensor.product.SameInputProducts;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.vector.Lanes;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The pre-norm decoder shared by the GGUF architectures of {@link Architecture}: RMSNorm, grouped-query attention
 * with RoPE (and optional q/k/v biases, per-head q/k norms, a sliding window on some layers, soft-capped scores),
 * SwiGLU or GeGLU feed-forward, optional norms of the attention's and feed-forward's outputs, tied or separate
 * output head. Activations for a whole batch go through each weight matrix at once, so the
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
    /** LongRoPE's rotation for contexts beyond the original one (Phi-3), or null. */
    private final Rope longRope;
    /** The sliding-window layers' rotation where it differs from the others' (Gemma 3), or null. */
    private final Rope slidingRope;
    private final Conventions conventions;
    private final Scratch scratch;
    private final Logits logits;
    private final WorkerPool pool = WorkerPool.shared();
    private final Attention attention;
    private final RowWork rowWork = new RowWork();

    public TransformerModel(GGUFFile gguf, ModelConfig config, int maxBatch, CopyStore copies) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, was " + maxBatch);
        this.config = config;
        this.maxBatch = maxBatch;
        this.conventions = config.conventions();
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
        int pairs = config.ropeDimensionCount() / 2;
        if (w.has("rope_factors_short.weight") || w.has("rope_factors_long.weight")) {
            rope = new Rope(config, w.optionalVector("rope_factors_short.weight", pairs));
            longRope = new Rope(config, w.optionalVector("rope_factors_long.weight", pairs));
        } else {
            rope = new Rope(config, w.optionalVector("rope_freqs.weight", pairs));
            longRope = null;
        }
        boolean slidingDiffers = conventions.slidingWindow() > 0 && (conventions.slidingRopeFreqBase() != config.ropeFreqBase()
                || conventions.slidingRopeScale() != config.ropeScaling().frequencyScale());
        slidingRope = slidingDiffers ? new Rope(config, conventions.slidingRopeFreqBase(), conventions.slidingRopeScale(),
                null, conventions.ropeAttentionFactor()) : null;
        scratch = new Scratch(config, maxBatch, rope.pairs());
        attention = new Attention(config, pool);
        logits = new Logits(vocab);
    }

    private LayerWeights loadLayer(WeightLoader w, String p) {
        int dim = config.embeddingLength();
        int q = config.queryLength();
        int kv = config.kvLength();
        int ffn = config.feedForwardLength();
        int head = config.headDim();
        WeightMatrix query, key, value, gate, up;
        if (w.has(p + "attn_qkv.weight")) { // Phi-3: one matrix, queries then keys then values
            int total = q + 2 * kv;
            query = w.rows(p + "attn_qkv.weight", total, dim, 0, q);
            key = w.rows(p + "attn_qkv.weight", total, dim, q, kv);
            value = w.rows(p + "attn_qkv.weight", total, dim, q + kv, kv);
        } else {
            query = w.matrix(p + "attn_q.weight", q, dim);
            key = w.matrix(p + "attn_k.weight", kv, dim);
            value = w.matrix(p + "attn_v.weight", kv, dim);
        }
        if (w.has(p + "ffn_gate.weight")) {
            gate = w.matrix(p + "ffn_gate.weight", ffn, dim);
            up = w.matrix(p + "ffn_up.weight", ffn, dim);
        } else { // Phi-3: ffn_up holds the gate's rows, then the up projection's
            gate = w.rows(p + "ffn_up.weight", 2 * ffn, dim, 0, ffn);
            up = w.rows(p + "ffn_up.weight", 2 * ffn, dim, ffn, ffn);
        }
        return new LayerWeights(
                w.vector(p + "attn_norm.weight", dim),
                query,
                key,
                value,
                w.optionalVector(p + "attn_q.bias", q),
                w.optionalVector(p + "attn_k.bias", kv),
                w.optionalVector(p + "attn_v.bias", kv),
                w.optionalVector(p + "attn_q_norm.weight", head),
                w.optionalVector(p + "attn_k_norm.weight", head),
                w.matrix(p + "attn_output.weight", dim, q),
                w.optionalVector(p + "post_attention_norm.weight", dim),
                w.vector(p + "ffn_norm.weight", dim),
                gate,
                up,
                w.matrix(p + "ffn_down.weight", dim, ffn),
                w.optionalVector(p + "post_ffw_norm.weight", dim));
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
        int pairs = rope.pairs();
        int prompt = s.order(batch);
        // LongRoPE: the long factors when a sequence may outgrow the original context, as llama.cpp picks them
        Rope global = longRope != null && cache.contextLength() > conventions.ropeOriginalContext() ? longRope : rope;
        float embeddingScale = conventions.embeddingScale();
        for (int i = 0; i < n; i++) {
            int e = s.entries[i];
            s.cells[i] = cache.prepareWrite(batch.sequence(e), batch.position(e));
            s.windowCells[i] = cache.windowCell(batch.sequence(e), batch.position(e));
            tokenEmbedding.dequantizeRow(batch.token(e), s.x, i * dim);
            if (embeddingScale != 1f) scale(s.x, i * dim, dim, embeddingScale);
            global.angles(batch.position(e), s.cos, s.sin, i * pairs);
            if (slidingRope != null) slidingRope.angles(batch.position(e), s.slidingCos, s.slidingSin, i * pairs);
        }
        for (int l = 0; l < layers.length; l++) {
            LayerWeights lw = layers[l];
            rowWork.run(RowWork.ATTENTION_INPUT, lw, n, cache, l);
            SameInputProducts.multiply(queryKeyValue[l], s.xb, n, s.queryKeyValue, prompt);
            rowWork.run(RowWork.POSITIONS, lw, n, cache, l);
            if (l == layers.length - 1) {
                // Past the last layer's keys and values only the rows that give logits matter: the
                // others (a prompt's tokens but its last) skip its attention and feed-forward.
                n = s.keepLogitRows(batch, n, prompt, qLen, dim);
                prompt = s.keptPrompt;
                if (n == 0) break;
            }
            // Every entry's keys are stored before any attends, so entries of one sequence in this
            // batch see each other (causally, by position).
            attention.run(batch, cache, l, n, s.entries, s.q, s.attention);
            lw.attentionOutput().multiply(s.attention, n, s.xb, prompt);
            rowWork.run(RowWork.FEED_FORWARD_INPUT, lw, n, cache, l);
            SameInputProducts.multiply(gateUp[l], s.xb, n, s.gateUp, prompt);
            rowWork.run(RowWork.SWIGLU, lw, n, cache, l);
            lw.ffnDown().multiply(s.gate, n, s.xb, prompt);
            rowWork.run(RowWork.RESIDUAL, lw, n, cache, l);
        }
        for (int e = 0; e < batch.size(); e++) cache.markWritten(batch.sequence(e), batch.position(e));
        int rows = batch.logitsCount();
        logits.resize(rows);
        for (int i = 0; i < n; i++) {
            int row = batch.logitsRow(s.entries[i]);
            if (row >= 0) rmsNormRow(s.x, i * dim, s.xb, row * dim, dim, outputNorm);
        }
        // Every logits row, a prompt's last token's too, takes the row kernels: one path for the head,
        // whatever the roles of the batch's other entries.
        if (rows > 0) output.multiply(s.xb, rows, logits.data());
        if (rows > 0 && conventions.finalSoftcap() > 0) {
            SoftCap.apply(logits.data(), 0, rows * config.vocabSize(), conventions.finalSoftcap());
        }
        return logits;
    }

    /** The queries at the attention's precision ({@link Attention}). */
    private static void roundToHalf(float[] v, int offset, int length) {
        for (int i = offset; i < offset + length; i++) v[i] = Attention.roundToHalf(v[i]);
    }

    private void checkInputs(Batch batch, KVCache cache) {
        if (batch.size() > maxBatch) {
            throw new IllegalArgumentException("batch of " + batch.size() + " entries exceeds this model's maxBatch " + maxBatch);
        }
        if (cache.layers() != config.blockCount() || cache.kvHeads() != config.headCountKv() || cache.headDim() != config.headDim()) {
            throw new IllegalArgumentException("KV cache shaped for " + cache.layers() + " layers x " + cache.kvHeads()
                    + " heads x " + cache.headDim() + ", model needs " + config.blockCount() + " x " + config.headCountKv()
                    + " x " + config.headDim());
        }
        var windows = cache.windows();
        for (int l = 0; l < config.blockCount(); l++) {
            if (windows.isWindowed(l) && (!conventions.isSliding(l) || windows.window() < conventions.slidingWindow())) {
                throw new IllegalArgumentException("the KV cache keeps only a window of layer " + l + ", which attends over more");
            }
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

    private static void scale(float[] v, int off, int len, float factor) {
        for (int i = off; i < off + len; i++) v[i] *= factor;
    }

    /** {@code row[off ..] += bias}, where there is a bias. */
    private static void addBias(float[] rows, int off, float[] bias) {
        if (bias == null) return;
        for (int i = 0; i < bias.length; i++) rows[off + i] += bias[i];
    }

    private static void addInPlace(float[] acc, int accOff, float[] add, int addOff, int len) {
        for (int i = 0; i < len; i++) acc[accOff + i] += add[addOff + i];
    }

    /**
     * {@code gate = silu(gate) * up} over {@code [from, to)}, {@code silu(g) = g / (1 + e^-g)}, with e^-|g| from
     * {@link Lanes#expNonPositive} ({@code g e^g / (1 + e^g)} for negative g, which cannot overflow):
     * {@code lanewise(EXP)}'s intrinsic and its Java fallback differ in the last bits, so the same request
     * gave other tokens depending on whether the JIT had compiled this yet (a 1B Q4_K_M file, greedy).
     */
    private static void swiglu(float[] gate, float[] up, int from, int to) {
        int i = from;
        for (int bound = from + F.loopBound(to - from); i < bound; i += F.length()) {
            silu(FloatVector.fromArray(F, gate, i)).mul(FloatVector.fromArray(F, up, i)).intoArray(gate, i);
        }
        if (i < to) {
            var inRange = F.indexInRange(i, to);
            silu(FloatVector.fromArray(F, gate, i, inRange)).mul(FloatVector.fromArray(F, up, i, inRange)).intoArray(gate, i, inRange);
        }
    }

    /**
     * {@code gate = gelu(gate) * up} over {@code [from, to)} with GELU's tanh approximation as ggml computes it: the
     * input rounded to a half, looked up in a table of halves, inputs beyond +-10 taken as 0 and the identity.
     */
    private static void geglu(float[] gate, float[] up, int from, int to) {
        for (int i = from; i < to; i++) {
            float g = gate[i];
            float gelu = g <= -10f ? 0f : g >= 10f ? g : Gelu.TABLE[Float.floatToFloat16(g) & 0xFFFF];
            gate[i] = gelu * up[i];
        }
    }

    /** {@code gelu(x)} for every half {@code x}, rounded to a half, indexed by the half's bits. */
    private static final class Gelu {
        static final float[] TABLE = new float[1 << 16];

        static {
            for (int bits = 0; bits < TABLE.length; bits++) {
                float x = Float.float16ToFloat((short) bits);
                float y = (float) (0.5 * x * (1 + Math.tanh(0.7978845608028654 * x * (1 + 0.044715 * x * x))));
                TABLE[bits] = Float.float16ToFloat(Float.floatToFloat16(y));
            }
        }
    }

    private static FloatVector silu(FloatVector g) {
        var e = Lanes.expNonPositive(g.abs().neg());
        return g.mul(FloatVector.broadcast(F, 1f).blend(e, g.compare(VectorOperators.LT, 0f))).div(e.add(1f));
    }

    /**
     * A layer's work on each row around its products: the norms, the residual additions, the biases, positions and
     * key-value stores, SwiGLU. A prompt's rows are shared out to the pool threads (on the calling thread alone this
     * took about 2% of a 512-token prompt on two threads while the other waited, SwiGLU another 2%, and a larger
     * share with more threads); a few generated tokens stay on the calling thread, but for SwiGLU, whose rows are
     * long. Each row's operations are the same whichever thread runs them. A reused object, so a layer allocates
     * nothing.
     */
    private final class RowWork implements WorkerPool.Task {
        /** The normed input of the layer's attention. */
        static final int ATTENTION_INPUT = 0;
        /** Biases, rotary positions, the queries' rounding, the keys and values into the cache. */
        static final int POSITIONS = 1;
        /** The attention's output added to the residual, and the normed input of the feed-forward. */
        static final int FEED_FORWARD_INPUT = 2;
        /** The feed-forward's output added to the residual. */
        static final int RESIDUAL = 3;
        /** {@code gate = silu(gate) * up}, the feed-forward's width a row. */
        static final int SWIGLU = 4;
        /**
         * Rows from which a batch is shared out: a row's work here is about a microsecond on the 1B, a hand-off to the
         * pool several, so a few generated tokens' rows stay on the calling thread (a judgement, not a measurement).
         */
        private static final int SHARED_FROM = 16;

        private int step;
        private LayerWeights weights;
        private KVCache cache;
        private int layer;
        private int rows;

        void run(int step, LayerWeights weights, int rows, KVCache cache, int layer) {
            this.step = step;
            this.weights = weights;
            this.cache = cache;
            this.layer = layer;
            this.rows = rows;
            try {
                int tasks = tasks();
                if (tasks <= 1) {
                    rows(0, rows);
                } else {
                    pool.parallelFor(tasks, this);
                }
            } finally {
                this.weights = null;
                this.cache = null;
            }
        }

        private int tasks() {
            return rows < (step == SWIGLU ? 2 : SHARED_FROM) ? 1 : Math.min(rows, pool.threads());
        }

        @Override
        public void run(int task, int worker) {
            int tasks = tasks();
            rows(rows * task / tasks, rows * (task + 1) / tasks);
        }

        private void rows(int from, int to) {
            var s = scratch;
            int dim = config.embeddingLength();
            for (int i = from; i < to; i++) {
                int x = i * dim;
                switch (step) {
                    case ATTENTION_INPUT -> rmsNormRow(s.x, x, s.xb, x, dim, weights.attentionNorm());
                    case POSITIONS -> positions(i);
                    case FEED_FORWARD_INPUT -> {
                        if (weights.postAttentionNorm() != null) rmsNormRow(s.xb, x, s.xb, x, dim, weights.postAttentionNorm());
                        addInPlace(s.x, x, s.xb, x, dim);
                        rmsNormRow(s.x, x, s.xb, x, dim, weights.ffnNorm());
                    }
                    case RESIDUAL -> {
                        if (weights.postFeedForwardNorm() != null) rmsNormRow(s.xb, x, s.xb, x, dim, weights.postFeedForwardNorm());
                        addInPlace(s.x, x, s.xb, x, dim);
                    }
                    case SWIGLU -> {
                        int ffn = config.feedForwardLength();
                        switch (config.architecture().activation()) {
                            case SILU -> swiglu(s.gate, s.up, i * ffn, (i + 1) * ffn);
                            case GELU -> geglu(s.gate, s.up, i * ffn, (i + 1) * ffn);
                        }
                    }
                    default -> throw new IllegalStateException("step " + step);
                }
            }
        }

        /**
         * Row i's biases, per-head norms, rotary positions and rounded (and, where the model says so, scaled) queries,
         * and its keys and values into the cache.
         */
        private void positions(int i) {
            var s = scratch;
            int qLen = config.queryLength();
            int kvLen = config.kvLength();
            int pairs = rope.pairs();
            addBias(s.q, i * qLen, weights.queryBias());
            addBias(s.k, i * kvLen, weights.keyBias());
            addBias(s.v, i * kvLen, weights.valueBias());
            headNorms(s.q, i * qLen, config.headCount(), weights.queryNorm());
            headNorms(s.k, i * kvLen, config.headCountKv(), weights.keyNorm());
            boolean sliding = slidingRope != null && conventions.isSliding(layer);
            float[] cos = sliding ? s.slidingCos : s.cos;
            float[] sin = sliding ? s.slidingSin : s.sin;
            rope.rotate(s.q, i * qLen, config.headCount(), cos, sin, i * pairs);
            if (conventions.queryScale() > 0) scale(s.q, i * qLen, qLen, conventions.queryScale());
            roundToHalf(s.q, i * qLen, qLen);
            rope.rotate(s.k, i * kvLen, config.headCountKv(), cos, sin, i * pairs);
            cache.store(layer, cache.windows().isWindowed(layer) ? s.windowCells[i] : s.cells[i], s.k, i * kvLen, s.v, i * kvLen); // at F16 precision (Attention)
        }

        /** Each of {@code heads} heads from {@code offset} RMS-normed by {@code weight}, where the model has one. */
        private void headNorms(float[] v, int offset, int heads, float[] weight) {
            if (weight == null) return;
            int headDim = config.headDim();
            for (int h = 0; h < heads; h++) rmsNormRow(v, offset + h * headDim, v, offset + h * headDim, headDim, weight);
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
        /** The angles of the sliding-window layers' rotation, where it has its own. */
        final float[] slidingCos;
        final float[] slidingSin;
        final int[] cells;       // where each row's keys and values go: block * blockSize + slot
        final int[] windowCells; // the same in the sliding-window layers' blocks
        final int[] entries;     // the batch entry in each activation row: prompt tokens first

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
            slidingCos = new float[maxBatch * pairs];
            slidingSin = new float[maxBatch * pairs];
            cells = new int[maxBatch];
            windowCells = new int[maxBatch];
            entries = new int[maxBatch];
        }

        /** How many of the rows {@link #keepLogitRows} kept are prompt tokens. */
        int keptPrompt;

        /**
         * Moves the rows whose entries give logits, their queries and residuals, to the front in their order and
         * returns how many there are; {@link #keptPrompt} says how many of them are prompt tokens. A row's role
         * stays, so each path's products give it the bits they gave it among all the rows.
         */
        int keepLogitRows(Batch batch, int rows, int prompt, int qLen, int dim) {
            int kept = 0;
            keptPrompt = 0;
            for (int i = 0; i < rows; i++) {
                if (batch.logitsRow(entries[i]) < 0) continue;
                if (kept != i) {
                    entries[kept] = entries[i];
                    System.arraycopy(q, i * qLen, q, kept * qLen, qLen);
                    System.arraycopy(x, i * dim, x, kept * dim, dim);
                }
                if (i < prompt) keptPrompt++;
                kept++;
            }
            return kept;
        }

        /** Fills {@link #entries}: the prompt tokens in batch order, then the generated ones; returns how many are prompt tokens. */
        int order(Batch batch) {
            int prompt = batch.promptCount();
            int nextPrompt = 0;
            int nextGenerated = prompt;
            for (int e = 0; e < batch.size(); e++) entries[batch.isPromptToken(e) ? nextPrompt++ : nextGenerated++] = e;
            return prompt;
        }
    }
}
