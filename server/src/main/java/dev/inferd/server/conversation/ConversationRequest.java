package dev.inferd.server.conversation;

import dev.inferd.engine.chat.Message;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.ResponseFormat;
import dev.inferd.server.openai.SamplingFields;

import java.util.List;
import java.util.Map;

/**
 * A conversation to continue, whatever protocol it came in on: each protocol's parser builds one,
 * {@link ConversationPlanner} turns it into the engine's request.
 *
 * @param messages          the turns, system and developer text first, with assistant tool calls and tool results
 * @param tools             the function tools and how the model may use them
 * @param format            the output's shape: text, any JSON object, or JSON against a schema
 * @param enableThinking    the template's {@code enable_thinking}, or null for the template's default
 * @param separateReasoning thinking goes to the reasoning channel rather than the content
 * @param templateVariables further chat template variables (chat's {@code chat_template_kwargs})
 * @param maxTokens         the client's cap on generated tokens per choice, or null for all the room left
 * @param capPolicy         what a cap beyond the room left means
 * @param logprobs          -1 without log-probabilities, else the number of alternatives per token
 * @param promptParam       the request field that holds the conversation, named by errors about it
 * @param freeJsonLayout    JSON under a grammar may be laid out freely (chat's extension {@code json_layout: "free"})
 * @param continuesFinalTurn a final assistant turn of text is a prefill: the reply continues it (Messages, chat)
 *                          rather than following it as a turn of its own (Responses)
 * @param thinkingBudget    the most tokens a reasoning model's thinking may take before it is closed, or null
 */
public record ConversationRequest(String model, List<Message> messages, ChatTools tools, ResponseFormat format,
                                  Boolean enableThinking, boolean separateReasoning,
                                  Map<String, Object> templateVariables, SamplingFields sampling, int n,
                                  List<String> stop, Integer maxTokens, CapPolicy capPolicy, int logprobs,
                                  String promptParam, boolean freeJsonLayout, boolean continuesFinalTurn,
                                  Integer thinkingBudget) {

    public ConversationRequest {
        messages = List.copyOf(messages);
        templateVariables = Map.copyOf(templateVariables);
        stop = List.copyOf(stop);
    }

    /** A conversation whose JSON under a grammar has the compact layout. */
    public ConversationRequest(String model, List<Message> messages, ChatTools tools, ResponseFormat format,
                               Boolean enableThinking, boolean separateReasoning, Map<String, Object> templateVariables,
                               SamplingFields sampling, int n, List<String> stop, Integer maxTokens, CapPolicy capPolicy,
                               int logprobs, String promptParam) {
        this(model, messages, tools, format, enableThinking, separateReasoning, templateVariables, sampling, n, stop,
                maxTokens, capPolicy, logprobs, promptParam, false);
    }

    /** A conversation whose final assistant turn, if any, is a finished turn, with no thinking budget. */
    public ConversationRequest(String model, List<Message> messages, ChatTools tools, ResponseFormat format,
                               Boolean enableThinking, boolean separateReasoning, Map<String, Object> templateVariables,
                               SamplingFields sampling, int n, List<String> stop, Integer maxTokens, CapPolicy capPolicy,
                               int logprobs, String promptParam, boolean freeJsonLayout) {
        this(model, messages, tools, format, enableThinking, separateReasoning, templateVariables, sampling, n, stop,
                maxTokens, capPolicy, logprobs, promptParam, freeJsonLayout, false, null);
    }

    /** This conversation, its final assistant turn of text continued by the reply (a prefill). */
    public ConversationRequest continuingFinalTurn() {
        return new ConversationRequest(model, messages, tools, format, enableThinking, separateReasoning,
                templateVariables, sampling, n, stop, maxTokens, capPolicy, logprobs, promptParam, freeJsonLayout,
                true, thinkingBudget);
    }

    /** This conversation, a reasoning model's thinking closed after at most {@code budget} tokens. */
    public ConversationRequest withThinkingBudget(int budget) {
        return new ConversationRequest(model, messages, tools, format, enableThinking, separateReasoning,
                templateVariables, sampling, n, stop, maxTokens, capPolicy, logprobs, promptParam, freeJsonLayout,
                continuesFinalTurn, budget);
    }

    /** The prefill: the final assistant turn's text when the reply continues it, else null. */
    public String prefill() {
        if (!continuesFinalTurn || messages.isEmpty()) return null;
        Message last = messages.getLast();
        boolean text = last.role() == Message.Role.ASSISTANT && last.toolCalls().isEmpty() && last.content() != null;
        return text && !last.content().isEmpty() ? last.content() : null;
    }

    /**
     * The turns to render: all of them, but an empty final assistant turn when the reply continues that turn
     * (there is nothing to continue, and closing it would make the model answer an empty reply).
     */
    public List<Message> turns() {
        if (!continuesFinalTurn || messages.isEmpty() || prefill() != null) return messages;
        Message last = messages.getLast();
        boolean empty = last.role() == Message.Role.ASSISTANT && last.toolCalls().isEmpty() && "".equals(last.content());
        return empty && messages.size() > 1 ? messages.subList(0, messages.size() - 1) : messages;
    }

    public boolean wantsLogprobs() {
        return logprobs >= 0;
    }

    /**
     * Whether rendering needs the chat format (tools, tool turns, template settings, a prefill) rather than the
     * generator's plain turns.
     */
    public boolean needsChatFormat() {
        return !tools.definitions().isEmpty() || !templateVariables.isEmpty() || enableThinking != null
                || prefill() != null || messages.stream().anyMatch(m -> !m.toolCalls().isEmpty());
    }
}
