package dev.inferd.engine.sample;

import java.util.Map;

/**
 * How the next token is chosen.
 *
 * @param temperature 0 means greedy
 * @param topP nucleus mass in (0, 1]
 * @param seed null for a random seed; the same seed and request give the same output
 * @param presencePenalty subtracted once from the logit of every token already generated
 * @param frequencyPenalty subtracted from a token's logit once per earlier occurrence
 * @param logitBias token id to a bias added to its logit (-100 bans, 100 forces)
 * @param topK at most this many of the most likely tokens are sampled from (0: no such limit)
 */
public record SamplingParams(float temperature, float topP, Long seed,
                             float presencePenalty, float frequencyPenalty,
                             Map<Integer, Float> logitBias, int topK) {

    public static final SamplingParams GREEDY = new SamplingParams(0f, 1f, 0L, 0f, 0f, Map.of());

    public SamplingParams {
        logitBias = logitBias == null ? Map.of() : Map.copyOf(logitBias);
        if (topK < 0) throw new IllegalArgumentException("top_k must not be negative: " + topK);
    }

    /** Without a top-k limit. */
    public SamplingParams(float temperature, float topP, Long seed, float presencePenalty, float frequencyPenalty,
                          Map<Integer, Float> logitBias) {
        this(temperature, topP, seed, presencePenalty, frequencyPenalty, logitBias, 0);
    }

    public boolean greedy() {
        return temperature <= 0f;
    }
}
