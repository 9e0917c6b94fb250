package dev.inferd.server.http;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.PromptOptions;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.output.ChatOutputParser;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.engine.chat.output.ParsedOutput;
import dev.inferd.engine.chat.output.ParsedToolCall;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.ChatCompletion;
import dev.inferd.server.openai.ChatCompletionChunk;
import dev.inferd.server.openai.ChatLogprobs;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatRequest;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.OutputConstraints;
import dev.inferd.server.openai.ChatRequestParser;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.openai.Usage;

import java.util.ArrayList;
import java.util.List;

/** {@code POST /v1/chat/completions}, streamed or not. */
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
            TextGenerator generator = lease.generator();
            ChatFormat format = generator.chatFormat();
            RenderedPrompt rendered;
            int[] prompt;
            if (request.needsChatFormat()) {
                var options = new PromptOptions(request.tools().choice() == ChatTools.Choice.NONE ? List.of()
                        : request.tools().definitions(), enableThinking(request), request.templateVariables());
                rendered = renderOrReject(() -> format.render(request.conversation(), options));
                prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(rendered, limit), generator, "messages");
            } else {
                rendered = new RenderedPrompt("", false);
                prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(request.messages(), limit), generator,
                        "messages");
            }
            var output = new ChatOutput(format, rendered, request, separateReasoning && request.separateReasoning());
            GenerationRequest generation = EngineRequests.of(request, prompt, generator, "messages",
                    OutputConstraints.forChat(request, generator, output.splitsThinking(), rendered.opensReasoning()))
                    .withControlTokenText(output.controlTokenText());
            long created = System.currentTimeMillis() / 1000;
            MeteredGeneration run = lease.submit(generation);
            if (request.stream()) {
                var chunks = new ChatCompletionChunk.Factory(Ids.chatCompletionId(), created, request.model(),
                        systemFingerprint);
                new ChatStreamWriter(chunks, request, output).write(run, response, client);
            } else {
                var answer = new ProbedJsonResponse(response);
                client.probeWith(answer);
                answer.send(collect(run, request, output, created, client));
            }
        }
    }

    private static Boolean enableThinking(ChatRequest request) {
        return request.templateVariables().get("enable_thinking") instanceof Boolean b ? b : null;
    }

    private static RenderedPrompt renderOrReject(java.util.function.Supplier<RenderedPrompt> render) {
        try {
            return render.get();
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("messages", "Invalid 'messages': " + e.getMessage());
        }
    }

    private ChatCompletion collect(MeteredGeneration run, ChatRequest request, ChatOutput output, long created,
                                   ClientWatch client) throws InterruptedException {
        ChoiceCollector collected = ChoiceCollector.drain(run, request.n(), client);
        List<ChatCompletion.Choice> choices = new ArrayList<>(request.n());
        for (int i = 0; i < request.n(); i++) {
            ChatLogprobs logprobs = request.wantsLogprobs() ? ChatLogprobs.of(collected.logprobs(i)) : null;
            ChatOutputParser parser = output.parser(OutputListener.NONE);
            parser.accept(collected.text(i));
            parser.finish();
            ParsedOutput parsed = parser.result();
            List<ChatCompletion.ToolCall> calls = new ArrayList<>();
            for (ParsedToolCall call : parsed.toolCalls()) {
                if (call.complete() && calls.size() < output.maxCalls()) {
                    calls.add(ChatCompletion.ToolCall.function(Ids.toolCallId(), call.name(), call.arguments()));
                }
            }
            String content = parsed.content() == null && calls.isEmpty() ? "" : parsed.content();
            var message = new ChatCompletion.Message("assistant", content, null, calls, parsed.reasoning());
            choices.add(new ChatCompletion.Choice(i, message, logprobs,
                    ChatOutput.finishReason(collected.finishReason(i), !calls.isEmpty())));
        }
        Usage usage = Usage.of(collected.result());
        AccessLog.usage(usage);
        return new ChatCompletion(Ids.chatCompletionId(), created, request.model(), choices, usage, systemFingerprint);
    }

    /** Turns one run's events into chat chunks: content, reasoning and call fragments as the parser finds them. */
    private static final class ChatStreamWriter implements StreamedRun.Translator {
        private final ChatCompletionChunk.Factory chunks;
        private final ChatRequest request;
        private final ChatOutput output;
        private final ChatOutputParser[] parsers;
        private final ChoiceListener[] listeners;

        ChatStreamWriter(ChatCompletionChunk.Factory chunks, ChatRequest request, ChatOutput output) {
            this.chunks = chunks;
            this.request = request;
            this.output = output;
            this.parsers = new ChatOutputParser[request.n()];
            this.listeners = new ChoiceListener[request.n()];
        }

        void write(MeteredGeneration run, ServerResponse response, ClientWatch client) throws InterruptedException {
            StreamedRun.stream(run, response, client, this);
        }

        @Override
        public void start(SseStream sse) {
            for (int i = 0; i < request.n(); i++) {
                listeners[i] = new ChoiceListener(sse, i);
                parsers[i] = output.parser(listeners[i]);
                sse.send(request.tools().forcesCall() ? chunks.roleForCall(i) : chunks.role(i));
            }
        }

        @Override
        public void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs) {
            ChoiceListener listener = listeners[choice];
            listener.pendingLogprobs = request.wantsLogprobs() && !logprobs.isEmpty() ? ChatLogprobs.of(logprobs) : null;
            parsers[choice].accept(text);
            if (listener.pendingLogprobs != null) {
                // The text went to reasoning or a call, or is held back: the log-probabilities still go out.
                sse.send(chunks.content(choice, "", listener.pendingLogprobs));
                listener.pendingLogprobs = null;
            }
        }

        @Override
        public void finish(SseStream sse, int choice, String finishReason) {
            parsers[choice].finish();
            sse.send(chunks.finish(choice, ChatOutput.finishReason(finishReason, listeners[choice].calls > 0)));
        }

        @Override
        public void end(SseStream sse, Usage usage) {
            if (request.includeUsage()) sse.send(chunks.usage(usage));
        }

        /** Sends one choice's channels as chunks; calls beyond the allowed count are dropped. */
        private final class ChoiceListener implements OutputListener {
            private final SseStream sse;
            private final int choice;
            ChatLogprobs pendingLogprobs;
            int calls;

            ChoiceListener(SseStream sse, int choice) {
                this.sse = sse;
                this.choice = choice;
            }

            @Override
            public void content(String text) {
                sse.send(chunks.content(choice, text, pendingLogprobs));
                pendingLogprobs = null;
            }

            @Override
            public void reasoning(String text) {
                sse.send(chunks.reasoning(choice, text));
            }

            @Override
            public void toolCallStarted(int index, String name) {
                if (index >= output.maxCalls()) return;
                calls++;
                sse.send(chunks.callStart(choice, index, Ids.toolCallId(), name));
            }

            @Override
            public void toolCallArguments(int index, String fragment) {
                if (index >= output.maxCalls() || fragment.isEmpty()) return;
                sse.send(chunks.callArguments(choice, index, fragment));
            }
        }
    }
}
