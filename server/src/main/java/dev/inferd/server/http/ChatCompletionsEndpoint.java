package dev.inferd.server.http;

import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.conversation.CapPolicy;
import dev.inferd.server.conversation.ChoiceOutput;
import dev.inferd.server.conversation.ConversationEvent;
import dev.inferd.server.conversation.ConversationPlan;
import dev.inferd.server.conversation.ConversationPlanner;
import dev.inferd.server.conversation.ConversationRequest;
import dev.inferd.server.conversation.StopReason;
import dev.inferd.server.conversation.ToolCallOutput;
import dev.inferd.server.openai.ChatCompletion;
import dev.inferd.server.openai.ChatCompletionChunk;
import dev.inferd.server.openai.ChatLogprobs;
import dev.inferd.server.openai.ChatRequest;
import dev.inferd.server.openai.ChatRequestParser;

import java.util.ArrayList;
import java.util.List;

/** {@code POST /v1/chat/completions}, streamed or not: the chat wire format over the conversation pipeline. */
final class ChatCompletionsEndpoint {

    private final ModelGate models;
    private final String systemFingerprint;
    private final long maxBodyBytes;

    private final boolean separateReasoning;

    /** @param separateReasoning the server's setting; a request may turn the split off for itself */
    ChatCompletionsEndpoint(ModelGate models, String systemFingerprint, long maxBodyBytes, boolean separateReasoning) {
        this.models = models;
        this.systemFingerprint = systemFingerprint;
        this.maxBodyBytes = maxBodyBytes;
        this.separateReasoning = separateReasoning;
    }

    void handle(ServerRequest httpRequest, ServerResponse response, ClientWatch client) throws InterruptedException {
        ChatRequest request = ChatRequestParser.parse(JsonExchange.readBody(httpRequest, maxBodyBytes));
        try (ModelLease lease = models.admit(request.model(), RequestHook.of(httpRequest))) {
            ConversationPlan plan = ConversationPlanner.plan(conversation(request), lease.generator(),
                    separateReasoning, "response_format", "max_tokens");
            long created = System.currentTimeMillis() / 1000;
            MeteredGeneration run = lease.submit(plan.engineRequest());
            if (request.stream()) {
                var chunks = new ChatCompletionChunk.Factory(Ids.chatCompletionId(), created, request.model(),
                        systemFingerprint);
                ConversationRun.stream(run, plan, response, client, new ChatStreamWriter(chunks, request));
            } else {
                var answer = ProbedJsonResponse.probedBy(client, response);
                answer.send(completion(ConversationRun.collect(run, plan, client), request, created));
            }
        }
    }

    /**
     * The chat request as the pipeline's conversation; chat refuses a cap the context cannot hold, and a final
     * assistant message is a prefill the reply continues, as llama-server does.
     */
    static ConversationRequest conversation(ChatRequest request) {
        Boolean enableThinking = request.templateVariables().get("enable_thinking") instanceof Boolean b ? b : null;
        return new ConversationRequest(request.model(), request.conversation(), request.tools(),
                request.responseFormat(), enableThinking, request.separateReasoning(), request.templateVariables(),
                request.sampling(), request.n(), request.stop(), request.maxTokens(), CapPolicy.REJECT,
                request.logprobCount(), "messages", request.freeJsonLayout()).continuingFinalTurn();
    }

    private ChatCompletion completion(ConversationRun.Collected collected, ChatRequest request, long created) {
        List<ChatCompletion.Choice> choices = new ArrayList<>(request.n());
        for (int i = 0; i < request.n(); i++) {
            ChoiceOutput output = collected.choices().get(i);
            ChatLogprobs logprobs = request.wantsLogprobs() ? ChatLogprobs.of(collected.logprobs().get(i)) : null;
            List<ChatCompletion.ToolCall> calls = new ArrayList<>();
            for (ToolCallOutput call : output.completeCalls()) {
                calls.add(ChatCompletion.ToolCall.function(call.id(), call.name(), call.arguments()));
            }
            String content = output.content() == null && calls.isEmpty() ? "" : output.content();
            var message = new ChatCompletion.Message("assistant", content, null, calls, output.reasoning());
            String finish = !calls.isEmpty() && output.engineStop() == StopReason.STOP ? "tool_calls"
                    : finishReason(output.engineStop());
            choices.add(new ChatCompletion.Choice(i, message, logprobs, finish));
        }
        return new ChatCompletion(Ids.chatCompletionId(), created, request.model(), choices, collected.usage(),
                systemFingerprint);
    }

    static String finishReason(StopReason reason) {
        return switch (reason) {
            case STOP -> "stop";
            case LENGTH -> "length";
            case TOOL_CALLS -> "tool_calls";
        };
    }

    /** Chat chunks: the role first, then content, reasoning and call fragments as the pipeline yields them. */
    private static final class ChatStreamWriter implements ConversationRun.Writer {
        private final ChatCompletionChunk.Factory chunks;
        private final ChatRequest request;

        ChatStreamWriter(ChatCompletionChunk.Factory chunks, ChatRequest request) {
            this.chunks = chunks;
            this.request = request;
        }

        @Override
        public void start(SseStream sse) {
            for (int i = 0; i < request.n(); i++) {
                sse.send(request.tools().forcesCall() ? chunks.roleForCall(i) : chunks.role(i));
            }
        }

        @Override
        public void event(SseStream sse, ConversationEvent event) {
            switch (event) {
                case ConversationEvent.ContentDelta d ->
                        sse.send(chunks.content(d.choice(), d.text(), logprobs(d.logprobs())));
                case ConversationEvent.Logprobs l -> sse.send(chunks.content(l.choice(), "", logprobs(l.logprobs())));
                case ConversationEvent.ReasoningDelta r -> sse.send(chunks.reasoning(r.choice(), r.text()));
                case ConversationEvent.ToolCallStarted s ->
                        sse.send(chunks.callStart(s.choice(), s.index(), s.id(), s.name()));
                case ConversationEvent.ToolCallArguments a ->
                        sse.send(chunks.callArguments(a.choice(), a.index(), a.fragment()));
                case ConversationEvent.ToolCallDone done -> {
                    // chat sends no event for a call's end: its arguments were all in the fragments
                }
                case ConversationEvent.ChoiceFinished f ->
                        sse.send(chunks.finish(f.choice(), finishReason(f.output().reason())));
                case ConversationEvent.Completed c -> {
                    if (request.includeUsage()) sse.send(chunks.usage(c.usage()));
                }
            }
        }

        private static ChatLogprobs logprobs(List<TokenLogprob> tokens) {
            return tokens.isEmpty() ? null : ChatLogprobs.of(tokens);
        }
    }
}
