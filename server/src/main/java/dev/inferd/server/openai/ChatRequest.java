package dev.inferd.server.openai;

import dev.inferd.engine.generate.ChatMessage;

import java.util.List;

/**
 * A validated {@code POST /v1/chat/completions} request.
 *
 * @param maxTokens the client's cap on generated tokens per choice, or null for "until the context is full"
 * @param topLogprobs -1 without log-probabilities, else the number of alternatives per token (0..20)
 */
public record ChatRequest(String model, List<ChatMessage> messages, boolean stream, boolean includeUsage,
                          SamplingFields sampling, Integer maxTokens, List<String> stop, int n,
                          int topLogprobs) implements GenerationFields {

    public ChatRequest {
        messages = List.copyOf(messages);
        stop = List.copyOf(stop);
    }

    @Override
    public Integer maxTokensCap() {
        return maxTokens;
    }

    @Override
    public int logprobCount() {
        return topLogprobs;
    }

    public boolean wantsLogprobs() {
        return topLogprobs >= 0;
    }
}
