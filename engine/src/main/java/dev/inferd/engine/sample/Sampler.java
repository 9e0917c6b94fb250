package dev.inferd.engine.sample;

import dev.inferd.engine.tensor.vector.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Chooses the next token of one sequence from the model's logits: logit bias, presence and frequency
 * penalties over the tokens this sequence generated so far, then greedy, or temperature, top-k and
 * nucleus (top_p) sampling with a seeded generator. One instance per sequence; its scratch buffers are sized
 * once for the vocabulary, so choosing a token allocates nothing.
 */
public final class Sampler {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private final SamplingParams params;
    private final SplittableRandom random;
    private final int[] generatedCounts;
    private final float[] work;
    private final TokenHeap heap;
    /** Null for an unconstrained sequence. */
    private final TokenConstraint constraint;
    /** Speculation: the draft's own random choices, apart from the sequence's. */
    private final SplittableRandom draftRandom;
    /** The tokens of the draft under way, counted in {@link #generatedCounts} until {@link #endDraft}. */
    private int[] draftTokens = new int[8];
    private int draftCount;
    /** The constraint advanced along the draft under way (a copy), or null where drafts go unmasked. */
    private TokenConstraint draftConstraint;
    /** The target's distribution while verifying a draft token; allocated on first use. */
    private float[] probabilities;

    /**
     * @param seed the seed for this sequence (the request's seed plus the choice index, so choices differ
     *             but the whole request is reproducible)
     */
    public Sampler(SamplingParams params, int vocabSize, long seed) {
        this(params, vocabSize, seed, null);
    }

    /** @param constraint the tokens this sequence may take, or null for any */
    public Sampler(SamplingParams params, int vocabSize, long seed, TokenConstraint constraint) {
        this.params = params;
        this.constraint = constraint;
        this.random = new SplittableRandom(seed);
        this.draftRandom = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.generatedCounts = new int[vocabSize];
        this.work = new float[vocabSize];
        this.heap = new TokenHeap(vocabSize);
        for (Map.Entry<Integer, Float> e : params.logitBias().entrySet()) {
            int id = e.getKey();
            if (id < 0 || id >= vocabSize) {
                throw new IllegalArgumentException("the logit bias names token " + id + ", outside the vocabulary of " + vocabSize);
            }
        }
    }

    /** Records a generated token, for the penalties and the constraint. */
    public void accept(int token) {
        generatedCounts[token]++;
        if (constraint != null) constraint.accept(token);
    }

    /** Picks the next token from {@code logits[offset .. offset + vocabSize)}; does not modify them. */
    public int sample(float[] logits, int offset) {
        if (prepare(logits, offset, constraint)) return argmax(work);
        float sum = softmaxNumerators();
        return truncated() ? sampleNucleus(sum, random) : sampleAll(sum, random);
    }

    /**
     * Bias, penalties and the constraint into {@link #work}; for sampling also the temperature.
     *
     * @return whether the choice is greedy (then {@link #work} holds the adjusted logits)
     */
    private boolean prepare(float[] logits, int offset, TokenConstraint mask) {
        System.arraycopy(logits, offset, work, 0, work.length);
        applyBiasAndPenalties();
        if (mask != null) mask.mask(work);
        return params.greedy();
    }

    /** Turns {@link #work}'s logits into e^(l/T - max), returning their sum. */
    private float softmaxNumerators() {
        int vocab = work.length;
        float invTemp = 1f / params.temperature();
        int bound = F.loopBound(vocab);
        var maxLanes = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < bound; i += F.length()) {
            var v = FloatVector.fromArray(F, work, i).mul(invTemp);
            v.intoArray(work, i);
            maxLanes = maxLanes.max(v);
        }
        float max = maxLanes.reduceLanes(VectorOperators.MAX); // exact whatever the order
        for (int i = bound; i < vocab; i++) {
            work[i] *= invTemp;
            if (work[i] > max) max = work[i];
        }
        // e^(l - max) eight at a time (a scalar Math.exp per token of the vocabulary was about a
        // millisecond per generated token on the scheduler's thread)
        return Lanes.softmaxNumerators(work, vocab, max);
    }

    /** Whether top_p or top_k cut the distribution down to its most likely tokens. */
    private boolean truncated() {
        return params.topP() < 1f || params.topK() > 0;
    }

    // ---- speculative decoding ----

    /**
     * Starts a draft: the following {@link #draft} calls choose tokens as this sequence would if the
     * earlier draft tokens had been accepted (penalties count them, the constraint advances along them
     * in a copy of its own), until {@link #endDraft} puts the state back.
     */
    public void beginDraft() {
        if (draftCount > 0) endDraft();
        draftConstraint = constraint != null ? constraint.copy() : null;
    }

    /**
     * Chooses a draft token from a draft model's logits, by this sequence's rules, and takes it into
     * the draft's state.
     *
     * @param q where the draft's distribution goes (the {@code q} of {@link #verify}), when sampling;
     *          null when greedy
     */
    public int draft(float[] logits, int offset, float[] q) {
        return draft(logits, offset, q, 0f);
    }

    /**
     * {@link #draft(float[], int, float[])}, but -1 (the draft ends, its state as before) where the draft
     * model gives its token a probability below {@code minProbability}: greedy, the top token's share of
     * the softmax at temperature 1; sampling, the token's share of {@code q}.
     */
    public int draft(float[] logits, int offset, float[] q, float minProbability) {
        int token;
        boolean unmasked = constraint != null && draftConstraint == null;
        if (prepare(logits, offset, unmasked ? null : draftConstraint)) {
            token = argmax(work);
            // e^(l - max) summed: the top token's probability is 1 / sum
            if (minProbability > 0f && Lanes.softmaxNumerators(work, work.length, work[token]) * minProbability > 1f) return -1;
        } else {
            float sum = softmaxNumerators();
            if (truncated()) {
                token = nucleusDistribution(sum, q, draftRandom);
            } else {
                float inv = 1f / sum;
                for (int i = 0; i < work.length; i++) q[i] = work[i] * inv;
                token = sampleAll(sum, draftRandom);
            }
            if (q[token] < minProbability) return -1;
        }
        if (draftCount == draftTokens.length) draftTokens = Arrays.copyOf(draftTokens, draftCount * 2);
        draftTokens[draftCount++] = token;
        generatedCounts[token]++;
        if (draftConstraint != null) draftConstraint.accept(token);
        return token;
    }

    /** Ends the draft: the sequence's state is again what its accepted tokens made it. */
    public void endDraft() {
        for (int i = 0; i < draftCount; i++) generatedCounts[draftTokens[i]]--;
        draftCount = 0;
        draftConstraint = null;
    }

    /**
     * Speculative sampling's test of a draft token drawn from {@code q}: with {@code p} the distribution
     * this sequence samples from at these logits, keeps {@code draftToken} with probability
     * min(1, p/q), otherwise draws from max(0, p - q) normalized. The result is distributed as p,
     * whatever q was. Greedy: the token {@link #sample} would give.
     *
     * @param q the draft's distribution (non-negative, summing to 1) over this vocabulary
     */
    public int verify(float[] logits, int offset, int draftToken, float[] q) {
        if (params.greedy()) return sample(logits, offset);
        if (probabilities == null) probabilities = new float[work.length];
        float[] p = probabilities;
        prepare(logits, offset, constraint);
        float sum = softmaxNumerators();
        if (truncated()) {
            nucleusDistribution(sum, p, null);
        } else {
            float inv = 1f / sum;
            for (int i = 0; i < work.length; i++) p[i] = work[i] * inv;
        }
        double pd = p[draftToken];
        double qd = q[draftToken];
        if (qd > 0 && random.nextDouble() * qd < pd) return draftToken;
        double residual = 0;
        for (int i = 0; i < p.length; i++) {
            float r = p[i] - q[i];
            work[i] = r > 0 ? r : 0f;
            residual += work[i];
        }
        if (residual <= 0) { // p equals q to rounding: every token's share is p's
            System.arraycopy(p, 0, work, 0, p.length);
            residual = 1;
        }
        return sampleAll(residual, random);
    }

    /**
     * The nucleus of {@link #work}'s numerators (summing to {@code sum}) as a distribution into
     * {@code out}; with a generator, also draws a token from it and returns that (else -1).
     */
    private int nucleusDistribution(float sum, float[] out, SplittableRandom draw) {
        heap.fill(work);
        double target = params.topP() * sum;
        int limit = params.topK() > 0 ? params.topK() : Integer.MAX_VALUE;
        double kept = 0;
        int count = 0;
        int[] keptIds = heap.extracted();
        while (heap.size() > 0 && count < limit) {
            int id = heap.pop();
            keptIds[count++] = id;
            kept += work[id];
            if (kept >= target) break;
        }
        Arrays.fill(out, 0f);
        float inv = (float) (1 / kept);
        for (int i = 0; i < count; i++) out[keptIds[i]] = work[keptIds[i]] * inv;
        if (draw == null) return -1;
        double r = draw.nextDouble() * kept;
        double acc = 0;
        for (int i = 0; i < count; i++) {
            acc += work[keptIds[i]];
            if (acc > r) return keptIds[i];
        }
        return keptIds[count - 1];
    }

    private void applyBiasAndPenalties() {
        for (Map.Entry<Integer, Float> e : params.logitBias().entrySet()) {
            work[e.getKey()] += e.getValue();
        }
        float presence = params.presencePenalty();
        float frequency = params.frequencyPenalty();
        if (presence == 0f && frequency == 0f) return;
        for (int i = 0; i < work.length; i++) {
            int c = generatedCounts[i];
            if (c > 0) work[i] -= presence + frequency * c;
        }
    }

    private int sampleAll(double sum, SplittableRandom random) {
        double r = random.nextDouble() * sum;
        double acc = 0;
        int last = 0;
        for (int i = 0; i < work.length; i++) {
            if (work[i] == 0f) continue;
            acc += work[i];
            last = i;
            if (acc > r) return i;
        }
        return last;
    }

    /**
     * Takes tokens in order of probability until their mass reaches top_p or their number top_k, then
     * samples among them. A heap over the vocabulary makes this O(V + k log V) for k kept tokens, not a
     * full sort.
     */
    private int sampleNucleus(double sum, SplittableRandom random) {
        heap.fill(work);
        double target = params.topP() * sum;
        int limit = params.topK() > 0 ? params.topK() : Integer.MAX_VALUE;
        double kept = 0;
        int count = 0;
        int[] keptIds = heap.extracted();
        while (heap.size() > 0 && count < limit) {
            int id = heap.pop();
            keptIds[count++] = id;
            kept += work[id];
            if (kept >= target) break;
        }
        double r = random.nextDouble() * kept;
        double acc = 0;
        for (int i = 0; i < count; i++) {
            acc += work[keptIds[i]];
            if (acc > r) return keptIds[i];
        }
        return keptIds[count - 1];
    }

    static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }

    /** A max-heap of token ids keyed by a float array, reusing its storage between calls. */
    static final class TokenHeap {
        private final int[] ids;
        private final int[] extracted;
        private float[] keys;
        private int size;

        TokenHeap(int capacity) {
            ids = new int[capacity];
            extracted = new int[capacity];
        }

        void fill(float[] keys) {
            this.keys = keys;
            size = keys.length;
            for (int i = 0; i < size; i++) ids[i] = i;
            for (int i = size / 2 - 1; i >= 0; i--) siftDown(i);
        }

        int size() { return size; }

        int[] extracted() { return extracted; }

        int pop() {
            int top = ids[0];
            ids[0] = ids[--size];
            siftDown(0);
            return top;
        }

        private void siftDown(int i) {
            int id = ids[i];
            float key = keys[id];
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) break;
                if (child + 1 < size && keys[ids[child + 1]] > keys[ids[child]]) child++;
                if (keys[ids[child]] <= key) break;
                ids[i] = ids[child];
                i = child;
            }
            ids[i] = id;
        }
    }

    @Override
    public String toString() {
        return "Sampler" + params + " counts=" + Arrays.stream(generatedCounts).sum();
    }
}
