package dev.inferd.server.http;

import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.ChatCompletion;
import dev.inferd.server.openai.ChatCompletionChunk;
import dev.inferd.server.openai.ChatLogprobs;
import dev.inferd.server.openai.ChatRequest;
import dev.inferd.server.openai.ChatRequestParser;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.openai.Usage;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.ArrayList;
import java.util.List;

/** {@code POST /v1/chat/completions}, streamed or not. */
final class ChatCompletionsEndpoint {

    private final ModelGate models;
    private final String systemFingerprint;
    private final long maxBodyBytes;

    ChatCompletionsEndpoint(ModelGate models, String systemFingerprint, long maxBodyBytes) {
        this.models = models;
        this.systemFingerprint = systemFingerprint;
        this.maxBodyBytes = maxBodyBytes;
    }

    void handle(ServerRequest httpRequest, ServerResponse response, ClientWatch client) throws InterruptedException {
        ChatRequest request = ChatRequestParser.parse(JsonExchange.readBody(httpRequest, maxBodyBytes));
        try (ModelLease lease = models.admit(request.model(), RequestHook.of(httpRequest))) {
            TextGenerator generator = lease.generator();
            int[] prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(request.messages(), limit), generator,
                    "messages");
            GenerationRequest generation = EngineRequests.of(request, prompt, generator, "messages");
            long created = System.currentTimeMillis() / 1000;
            MeteredGeneration run = lease.submit(generation);
            if (request.stream()) {
                var chunks = new ChatCompletionChunk.Factory(Ids.chatCompletionId(), created, request.model(),
                        systemFingerprint);
                new ChatStreamWriter(chunks, request).write(run, response, client);
            } else {
                var answer = new ProbedJsonResponse(response);
                client.probeWith(answer);
                answer.send(collect(run, request, created, client));
            }
        }
    }

    private ChatCompletion collect(MeteredGeneration run, ChatRequest request, long created, ClientWatch client)
            throws InterruptedException {
        ChoiceCollector collected = ChoiceCollector.drain(run, request.n(), client);
        List<ChatCompletion.Choice> choices = new ArrayList<>(request.n());
        for (int i = 0; i < request.n(); i++) {
            ChatLogprobs logprobs = request.wantsLogprobs() ? ChatLogprobs.of(collected.logprobs(i)) : null;
            choices.add(new ChatCompletion.Choice(i, ChatCompletion.Message.assistant(collected.text(i)), logprobs,
                    collected.finishReason(i)));
        }
        Usage usage = Usage.of(collected.result());
        AccessLog.usage(usage);
        return new ChatCompletion(Ids.chatCompletionId(), created, request.model(), choices, usage, systemFingerprint);
    }

    /** Turns one run's events into chat chunks. */
    private record ChatStreamWriter(ChatCompletionChunk.Factory chunks, ChatRequest request)
            implements StreamedRun.Translator {

        void write(MeteredGeneration run, ServerResponse response, ClientWatch client) throws InterruptedException {
            StreamedRun.stream(run, response, client, this);
        }

        @Override
        public void start(SseStream sse) {
            for (int i = 0; i < request.n(); i++) sse.send(chunks.role(i));
        }

        @Override
        public void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs) {
            boolean withLogprobs = request.wantsLogprobs() && !logprobs.isEmpty();
            if (text.isEmpty() && !withLogprobs) return;
            sse.send(chunks.content(choice, text, withLogprobs ? ChatLogprobs.of(logprobs) : null));
        }

        @Override
        public void finish(SseStream sse, int choice, String finishReason) {
            sse.send(chunks.finish(choice, finishReason));
        }

        @Override
        public void end(SseStream sse, Usage usage) {
            if (request.includeUsage()) sse.send(chunks.usage(usage));
        }
    }
}
