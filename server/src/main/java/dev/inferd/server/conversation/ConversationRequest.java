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
 */
public record ConversationRequest(String model, List<Message> messages, ChatTools tools, ResponseFormat format,
                                  Boolean enableThinking, boolean separateReasoning,
                                  Map<String, Object> templateVariables, SamplingFields sampling, int n,
                                  List<String> stop, Integer maxTokens, CapPolicy capPolicy, int logprobs,
                                  String promptParam, boolean freeJsonLayout) {

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

    public boolean wantsLogprobs() {
        return logprobs >= 0;
    }

    /**
     * Whether rendering needs the chat format (tools, tool turns, template settings) rather than the
     * generator's plain turns.
     */
    public boolean needsChatFormat() {
        return !tools.definitions().isEmpty() || !templateVariables.isEmpty() || enableThinking != null
                || messages.stream().anyMatch(m -> !m.toolCalls().isEmpty());
    }
}
