package dev.inferd.server.http;

import dev.inferd.server.anthropic.AnthropicBetas;
import dev.inferd.server.anthropic.AnthropicError;
import dev.inferd.server.anthropic.AnthropicIds;
import dev.inferd.server.anthropic.MessageEvent;
import dev.inferd.server.anthropic.MessageReplies;
import dev.inferd.server.anthropic.MessageStream;
import dev.inferd.server.anthropic.MessagesConversation;
import dev.inferd.server.anthropic.MessagesRequest;
import dev.inferd.server.anthropic.MessagesRequestParser;
import dev.inferd.server.anthropic.TokenCount;
import dev.inferd.server.conversation.ConversationEvent;
import dev.inferd.server.conversation.ConversationPlan;
import dev.inferd.server.conversation.ConversationPlanner;
import dev.inferd.server.openai.ApiError;

import java.util.List;

/**
 * {@code POST /v1/messages} (Anthropic's Messages API), streamed or not, and {@code POST /v1/messages/count_tokens}:
 * Anthropic's wire format over the conversation pipeline.
 */
final class MessagesEndpoint {

    private final ModelGate models;
    private final long maxBodyBytes;
    private final boolean separateReasoning;

    /** @param separateReasoning the server's setting: off, thinking stays in the text */
    MessagesEndpoint(ModelGate models, long maxBodyBytes, boolean separateReasoning) {
        this.models = models;
        this.maxBodyBytes = maxBodyBytes;
        this.separateReasoning = separateReasoning;
    }

    void handle(ServerRequest httpRequest, ServerResponse response, ClientWatch client) throws InterruptedException {
        MessagesRequest request = MessagesRequestParser.parse(JsonExchange.readBody(httpRequest, maxBodyBytes),
                AnthropicBetas.of(httpRequest.headerValues(AnthropicBetas.HEADER)));
        try (ModelLease lease = models.admit(request.model(), RequestHook.of(httpRequest))) {
            ConversationPlan plan = plan(request, lease);
            MeteredGeneration run = lease.submit(plan.engineRequest());
            String id = AnthropicIds.message();
            boolean omitThinking = request.thinking().omitted();
            if (request.stream()) {
                var events = new MessageStream(id, request.model(), omitThinking);
                ConversationRun.stream(run, plan, response, client, new StreamWriter(events,
                        plan.engineRequest().prompt().length));
            } else {
                var answer = ProbedJsonResponse.probedBy(client, response);
                ConversationRun.Collected collected = ConversationRun.collect(run, plan, client);
                answer.send(MessageReplies.message(id, request.model(), collected.choices().getFirst(),
                        collected.usage(), omitThinking));
            }
        }
    }

    /** The prompt's tokens as the same request would have them: rendered and tokenized by the same plan. */
    void countTokens(ServerRequest httpRequest, ServerResponse response) throws InterruptedException {
        MessagesRequest request = MessagesRequestParser.parseForCounting(JsonExchange.readBody(httpRequest, maxBodyBytes));
        try (ModelLease lease = models.admit(request.model(), RequestHook.of(httpRequest))) {
            ConversationPlan plan = plan(request, lease);
            JsonExchange.send(response, 200, new TokenCount(plan.engineRequest().prompt().length));
        }
    }

    /** A reply and its token count share one plan, so that the count is the reply's {@code input_tokens}. */
    private ConversationPlan plan(MessagesRequest request, ModelLease lease) {
        return ConversationPlanner.plan(MessagesConversation.of(request), lease.generator(), separateReasoning,
                "messages", "max_tokens");
    }

    /** Sends each of the stream's events under its name; a failure is an {@code error} event. */
    private static final class StreamWriter implements ConversationRun.Writer {
        private final MessageStream events;
        private final int promptTokens;

        StreamWriter(MessageStream events, int promptTokens) {
            this.events = events;
            this.promptTokens = promptTokens;
        }

        @Override
        public void start(SseStream sse) {
            send(sse, events.start(promptTokens));
        }

        @Override
        public void event(SseStream sse, ConversationEvent event) {
            send(sse, events.on(event));
        }

        @Override
        public void failed(SseStream sse, ApiError error) {
            sse.send("error", AnthropicError.of(error, null));
        }

        @Override
        public boolean endsWithDone() {
            return false;
        }

        private static void send(SseStream sse, List<MessageEvent> out) {
            for (MessageEvent e : out) sse.send(e.type(), e);
        }
    }
}
