package dev.inferd.engine.sample;

/**
 * Natural-log probabilities from raw logits (log-softmax), and the most likely tokens. Reported
 * log-probabilities are those of the model's own distribution, before temperature, penalties and
 * nucleus cut-off, as llama.cpp's and OpenAI's are.
 */
public final class Logprobs {
    private final int[] topIds;

    /** @param maxTop the largest number of alternatives that {@link #top} will be asked for */
    public Logprobs(int maxTop) {
        topIds = new int[Math.max(1, maxTop)];
        // k is bounded by the request validation, so this buffer never grows.
    }

    /** log(sum(exp(logits))) over {@code logits[offset .. offset + vocab)}, computed stably. */
    public static double logSumExp(float[] logits, int offset, int vocab) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < vocab; i++) max = Math.max(max, logits[offset + i]);
        double sum = 0;
        for (int i = 0; i < vocab; i++) sum += Math.exp(logits[offset + i] - max);
        return max + Math.log(sum);
    }

    /**
     * The {@code k} highest-logit token ids, best first, in a buffer this object reuses (valid until
     * the next call). Ties keep the lower id first.
     */
    public int[] top(float[] logits, int offset, int vocab, int k) {
        if (k <= 0) return topIds;
        int n = 0;
        for (int i = 0; i < vocab; i++) {
            float v = logits[offset + i];
            if (n == k && v <= logits[offset + topIds[n - 1]]) continue;
            int j = n == k ? n - 1 : n++;
            while (j > 0 && logits[offset + topIds[j - 1]] < v) {
                topIds[j] = topIds[j - 1];
                j--;
            }
            topIds[j] = i;
        }
        return topIds;
    }
}
