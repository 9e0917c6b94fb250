package dev.inferd.server.anthropic;

import dev.inferd.server.conversation.CapPolicy;
import dev.inferd.server.conversation.ConversationRequest;
import dev.inferd.server.openai.ResponseFormat;
import dev.inferd.server.openai.SamplingFields;

import java.util.Map;

/** Where a Messages API request becomes the pipeline's conversation. */
public final class MessagesConversation {

    private MessagesConversation() {
    }

    /**
     * One reply, thinking apart from the answer and within {@code budget_tokens} when {@code enabled} gives one, a
     * {@code max_tokens} beyond the context's room clamped to it (the reply then stops with {@code max_tokens}, as
     * Anthropic's clients expect from a cap they chose generously), a final assistant turn continued by the reply.
     */
    public static ConversationRequest of(MessagesRequest r) {
        var sampling = new SamplingFields(r.temperature(), r.topP(), null, 0f, 0f, Map.of(),
                r.topK() == null ? 0 : r.topK());
        var conversation = new ConversationRequest(r.model(), r.conversation(), r.tools(), ResponseFormat.TEXT,
                r.thinking().enableThinking(), true, Map.of(), sampling, 1, r.stopSequences(),
                r.maxTokens() > 0 ? r.maxTokens() : null, CapPolicy.CLAMP, -1, "messages").continuingFinalTurn();
        Integer budget = r.thinking().budgetTokens();
        return budget == null ? conversation : conversation.withThinkingBudget(budget);
    }
}
