package dev.inferd.server.openai;

import java.util.List;

/** What chat and legacy completion requests share about generating: see {@link EngineRequests}. */
public sealed interface GenerationFields permits ChatRequest, CompletionRequest {

    SamplingFields sampling();

    List<String> stop();

    int n();

    /** The client's cap on generated tokens per choice, or null for none. */
    Integer maxTokensCap();

    /** Without a cap: the most tokens per choice, lowered to the room the context leaves. */
    default int maxTokensWithoutCap() {
        return Integer.MAX_VALUE;
    }

    /** -1 without log-probabilities, else the number of alternatives per token. */
    int logprobCount();
}
