package dev.inferd.server.openai;

import java.util.Map;

/**
 * The sampling fields of a request as the client sent them (validated, not yet the engine's terms):
 * {@code temperature}, {@code top_p}, {@code seed}, {@code presence_penalty}, {@code frequency_penalty},
 * {@code logit_bias}.
 */
public record SamplingFields(float temperature, float topP, Long seed, float presencePenalty, float frequencyPenalty,
                             Map<Integer, Float> logitBias) {

    public SamplingFields {
        logitBias = Map.copyOf(logitBias);
    }
}
