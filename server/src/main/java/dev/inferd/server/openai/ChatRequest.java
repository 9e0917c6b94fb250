package dev.inferd.server.openai;

import dev.inferd.engine.chat.Message;
import dev.inferd.engine.generate.ChatMessage;

import java.util.List;
import java.util.Map;

/**
 * A validated {@code POST /v1/chat/completions} request.
 *
 * @param messages the conversation as plain text turns (for requests without tools)
 * @param conversation the conversation with tool calls and results, as the chat format renders it
 * @param maxTokens the client's cap on generated tokens per choice, or null for "until the context is full"
 * @param topLogprobs -1 without log-probabilities, else the number of alternatives per token (0..20)
 * @param templateVariables {@code chat_template_kwargs} (an extension), {@code enable_thinking} among them
 * @param separateReasoning thinking goes to {@code reasoning_content} (the extension {@code separate_reasoning: false} keeps it in content)
 * @param freeJsonLayout JSON under a grammar may be laid out freely (the extension {@code json_layout: "free"})
 */
public record ChatRequest(String model, List<ChatMessage> messages, boolean stream, boolean includeUsage,
                          SamplingFields sampling, Integer maxTokens, List<String> stop, int n,
                          int topLogprobs, List<Message> conversation, ResponseFormat responseFormat,
                          ChatTools tools, Map<String, Object> templateVariables, boolean separateReasoning,
                          boolean freeJsonLayout)
        implements GenerationFields {

    public ChatRequest {
        messages = List.copyOf(messages);
        stop = List.copyOf(stop);
        conversation = List.copyOf(conversation);
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

    /** Whether rendering needs the chat format (tools, tool turns, template variables) rather than plain turns. */
    public boolean needsChatFormat() {
        return !tools.definitions().isEmpty() || !templateVariables.isEmpty()
                || conversation.stream().anyMatch(m -> !m.toolCalls().isEmpty());
    }
}
