package dev.inferd.server.openai;

import java.util.Map;

/**
 * The sampling fields of a request as the client sent them (validated, not yet the engine's terms):
 * {@code temperature}, {@code top_p}, {@code seed}, {@code presence_penalty}, {@code frequency_penalty},
 * {@code logit_bias}, and {@code top_k} (Anthropic's; 0 for none).
 */
public record SamplingFields(float temperature, float topP, Long seed, float presencePenalty, float frequencyPenalty,
                             Map<Integer, Float> logitBias, int topK) {

    public SamplingFields {
        logitBias = Map.copyOf(logitBias);
    }

    /** Without a top-k limit (OpenAI's APIs have none). */
    public SamplingFields(float temperature, float topP, Long seed, float presencePenalty, float frequencyPenalty,
                          Map<Integer, Float> logitBias) {
        this(temperature, topP, seed, presencePenalty, frequencyPenalty, logitBias, 0);
    }
}
