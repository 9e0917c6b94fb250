package dev.inferd.server.http;

import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Usage;
import io.helidon.webserver.http.ServerResponse;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Streams generation runs as server-sent events. Nothing is sent before the engine's first event,
 * so a generation that fails at once still gets a proper error status; after that a failure is
 * an {@code error} event. A failed write means the client left: the engine is told to stop.
 */
final class StreamedRun {

    private static final System.Logger LOG = System.getLogger(StreamedRun.class.getName());
    private static final long KEEP_ALIVE_SECONDS = 15;

    /** Endpoint-specific shapes of the events. */
    interface Translator {
        void start(SseStream sse);

        void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs);

        void finish(SseStream sse, int choice, String finishReason);

        /** After every choice finished, before {@code [DONE]}: the usage chunk when it was asked for. */
        void end(SseStream sse, Usage usage);
    }

    /** One of the runs of a request, with the index its choice 0 has in the response. */
    interface RunSource {
        /** Starts the next run, or returns null when all runs are done. */
        GenerationRun next();

        int choiceOffset();
    }

    private StreamedRun() {
    }

    private static String requestId(ServerResponse response) {
        return response.headers().first(ApiRouter.REQUEST_ID).orElse("unknown");
    }

    static void stream(GenerationRun run, ServerResponse response, ClientWatch client, Translator translator)
            throws InterruptedException {
        GenerationRun[] single = {run};
        stream(new RunSource() {
            @Override
            public GenerationRun next() {
                GenerationRun r = single[0];
                single[0] = null;
                return r;
            }

            @Override
            public int choiceOffset() {
                return 0;
            }
        }, response, client, translator);
    }

    /**
     * @param client watched until the first event, while nothing is written yet (a queued request
     *               can wait long for it)
     */
    static void stream(RunSource runs, ServerResponse response, ClientWatch client, Translator translator)
            throws InterruptedException {
        GenerationRun run = runs.next();
        GenerationRun.Event first = run == null ? null : run.takeWatching(client);
        if (first instanceof GenerationRun.Failed f) throw GenerationRun.failure(f.error());

        try (SseStream sse = SseStream.open(response)) {
            try {
                translator.start(sse);
                Usage usage = Usage.of(0, 0);
                GenerationRun.Event event = first;
                while (run != null) {
                    if (event == null) {
                        sse.keepAlive();
                    } else {
                        switch (event) {
                            case GenerationRun.Text t ->
                                    translator.text(sse, runs.choiceOffset() + t.choice(), t.text(), t.logprobs());
                            case GenerationRun.Finish f ->
                                    translator.finish(sse, runs.choiceOffset() + f.choice(), f.reason().wireName());
                            case GenerationRun.Done d -> {
                                usage = usage.plus(Usage.of(d.result()));
                                run = runs.next();
                            }
                            case GenerationRun.Failed f -> {
                                // Busy can still come here, from the second prompt of a completions request.
                                if (GenerationRun.failure(f.error()) instanceof ApiError busy) {
                                    sse.send(busy.body());
                                } else {
                                    LOG.log(Level.ERROR, "generation failed during a stream", f.error());
                                    sse.send(ApiError.internal(requestId(response)).body());
                                }
                                return;
                            }
                        }
                    }
                    if (run != null) event = run.poll(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
                }
                AccessLog.usage(usage);
                translator.end(sse, usage);
                sse.done();
            } catch (ClientGoneException e) {
                // Cancelled, then counted as a departure (499), not as a finished stream.
                if (run != null) run.cancelAndAwait();
                throw e;
            } catch (InterruptedException | RuntimeException e) {
                if (run != null) run.cancelAndAwait();
                throw e;
            }
        }
    }
}
