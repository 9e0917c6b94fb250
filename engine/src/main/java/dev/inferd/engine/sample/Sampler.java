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
        int vocab = work.length;
        System.arraycopy(logits, offset, work, 0, vocab);
        applyBiasAndPenalties();
        if (constraint != null) constraint.mask(work);
        if (params.greedy()) return argmax(work);

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
        float sum = Lanes.softmaxNumerators(work, vocab, max);
        return params.topP() < 1f || params.topK() > 0 ? sampleNucleus(sum) : sampleAll(sum);
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

    private int sampleAll(double sum) {
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
    private int sampleNucleus(double sum) {
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
