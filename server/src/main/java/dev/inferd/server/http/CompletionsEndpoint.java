package dev.inferd.server.http;

import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.Completion;
import dev.inferd.server.openai.CompletionLogprobs;
import dev.inferd.server.openai.CompletionRequest;
import dev.inferd.server.openai.CompletionRequestParser;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.openai.OutputConstraints;
import dev.inferd.server.openai.FinishReasons;
import dev.inferd.server.openai.Usage;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST /v1/completions} (legacy). Several prompts run one after the other; choice
 * {@code index} is {@code prompt_index * n + i}.
 */
final class CompletionsEndpoint {

    private final ModelGate models;
    private final String systemFingerprint;
    private final long maxBodyBytes;

    CompletionsEndpoint(ModelGate models, String systemFingerprint, long maxBodyBytes) {
        this.models = models;
        this.systemFingerprint = systemFingerprint;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** One prompt, tokenized and fitted into the context before anything runs. */
    private record PreparedPrompt(String text, int[] tokens, GenerationRequest request) {
    }

    void handle(ServerRequest httpRequest, ServerResponse response, ClientWatch client) throws InterruptedException {
        CompletionRequest request = CompletionRequestParser.parse(JsonExchange.readBody(httpRequest, maxBodyBytes));
        try (ModelLease lease = models.admit(request.model(), RequestHook.of(httpRequest))) {
            TextGenerator generator = lease.generator();
            var constraint = OutputConstraints.forFormat(request.responseFormat(), request.freeJsonLayout(), generator,
                    "response_format");
            List<PreparedPrompt> prompts = new ArrayList<>();
            for (String prompt : request.prompts()) {
                int[] tokens = EngineRequests.tokenize(limit -> generator.textPrompt(prompt, limit), generator, "prompt");
                prompts.add(new PreparedPrompt(prompt, tokens, EngineRequests.of(request, tokens, generator, "prompt", constraint)));
            }
            long created = System.currentTimeMillis() / 1000;
            String id = Ids.completionId();
            if (request.stream()) {
                StreamedRun.stream(new Runs(lease, request, prompts), response, client,
                        new CompletionStreamWriter(id, created, request, prompts, systemFingerprint));
            } else {
                var answer = ProbedJsonResponse.probedBy(client, response);
                answer.send(collect(id, created, lease, request, prompts, client));
            }
        }
    }

    private Completion collect(String id, long created, ModelLease lease, CompletionRequest request,
                               List<PreparedPrompt> prompts, ClientWatch client) throws InterruptedException {
        List<Completion.Choice> choices = new ArrayList<>();
        Usage usage = Usage.of(0, 0);
        Runs runs = new Runs(lease, request, prompts);
        for (PreparedPrompt prompt : prompts) {
            String echo = request.echo() ? prompt.text() : "";
            MeteredGeneration run = runs.next();
            if (run == null) {
                // max_tokens 0: nothing to generate, and the engine needs room for one token.
                for (int i = 0; i < request.n(); i++) {
                    choices.add(new Completion.Choice(echo, choices.size(), emptyLogprobs(request),
                            FinishReasons.wireName(FinishReason.LENGTH)));
                }
                usage = usage.plus(Usage.of(prompt.tokens().length, 0));
                continue;
            }
            ChoiceCollector collected = ChoiceCollector.drain(run, request.n(), client);
            for (int i = 0; i < request.n(); i++) {
                CompletionLogprobs logprobs = request.wantsLogprobs()
                        ? CompletionLogprobs.of(collected.logprobs(i), 0) : null;
                choices.add(new Completion.Choice(echo + collected.text(i), choices.size(), logprobs,
                        collected.finishReason(i)));
            }
            usage = usage.plus(Usage.of(collected.result()));
        }
        AccessLog.usage(usage);
        return new Completion(id, created, request.model(), systemFingerprint, choices, usage);
    }

    private static CompletionLogprobs emptyLogprobs(CompletionRequest request) {
        return request.wantsLogprobs() ? CompletionLogprobs.of(List.of(), 0) : null;
    }

    /**
     * Starts one run per prompt, on demand. With {@code max_tokens: 0} there is nothing to run,
     * and {@link #next()} says so with null (streaming then only sends echo and finish chunks).
     */
    private static final class Runs implements StreamedRun.RunSource {
        private final ModelLease lease;
        private final CompletionRequest request;
        private final List<PreparedPrompt> prompts;
        private int started;

        Runs(ModelLease lease, CompletionRequest request, List<PreparedPrompt> prompts) {
            this.lease = lease;
            this.request = request;
            this.prompts = prompts;
        }

        @Override
        public MeteredGeneration next() {
            if (started == prompts.size() || request.maxTokens() == 0) {
                started = prompts.size();
                return null;
            }
            PreparedPrompt prompt = prompts.get(started++);
            return lease.submit(prompt.request());
        }

        @Override
        public int choiceOffset() {
            return (started - 1) * request.n();
        }
    }

    /** Legacy chunks: {@code object:"text_completion"}, one choice each, text fragments, then finish. */
    private static final class CompletionStreamWriter implements StreamedRun.Translator {
        private final String id;
        private final long created;
        private final CompletionRequest request;
        private final List<PreparedPrompt> prompts;
        private final String systemFingerprint;
        private final int[] offsets;

        CompletionStreamWriter(String id, long created, CompletionRequest request, List<PreparedPrompt> prompts,
                               String systemFingerprint) {
            this.id = id;
            this.created = created;
            this.request = request;
            this.prompts = prompts;
            this.systemFingerprint = systemFingerprint;
            this.offsets = new int[prompts.size() * request.n()];
        }

        @Override
        public void start(SseStream sse) {
            for (int p = 0; p < prompts.size(); p++) {
                for (int i = 0; i < request.n(); i++) {
                    int index = p * request.n() + i;
                    if (request.echo()) {
                        String echo = prompts.get(p).text();
                        offsets[index] = echo.codePointCount(0, echo.length());
                        sse.send(chunk(new Completion.Choice(echo, index, null, null)));
                    }
                    if (request.maxTokens() == 0) {
                        sse.send(chunk(new Completion.Choice("", index, emptyLogprobs(request),
                                FinishReasons.wireName(FinishReason.LENGTH))));
                    }
                }
            }
        }

        @Override
        public void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs) {
            boolean withLogprobs = request.wantsLogprobs() && !logprobs.isEmpty();
            if (text.isEmpty() && !withLogprobs) return;
            CompletionLogprobs lp = withLogprobs ? CompletionLogprobs.of(logprobs, offsets[choice]) : null;
            offsets[choice] += text.codePointCount(0, text.length());
            sse.send(chunk(new Completion.Choice(text, choice, lp, null)));
        }

        @Override
        public void finish(SseStream sse, int choice, FinishReason reason) {
            sse.send(chunk(new Completion.Choice("", choice, null, FinishReasons.wireName(reason))));
        }

        @Override
        public void end(SseStream sse, Usage usage) {
            if (request.includeUsage()) {
                if (request.maxTokens() == 0) {
                    usage = Usage.of(prompts.stream().mapToInt(p -> p.tokens().length).sum(), 0);
                }
                sse.send(new Completion(id, "text_completion", created, request.model(), systemFingerprint,
                        List.of(), usage));
            }
        }

        private Completion chunk(Completion.Choice choice) {
            return new Completion(id, "text_completion", created, request.model(), systemFingerprint,
                    List.of(choice), null);
        }
    }
}
