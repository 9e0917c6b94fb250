package dev.inferd.server.http;

import dev.inferd.engine.generate.GenerationEvent;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Usage;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Streams generations as server-sent events. Nothing is sent before the engine's first event, so a
 * generation that fails at once still gets a proper error status; after that a failure is an
 * {@code error} event. A failed write means the client left: the engine is told to stop.
 */
final class StreamedRun {

    private static final System.Logger LOG = System.getLogger(StreamedRun.class.getName());
    private static final long KEEP_ALIVE_SECONDS = 15;

    /** Endpoint-specific shapes of the events. */
    interface Translator {
        void start(SseStream sse);

        void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs);

        void finish(SseStream sse, int choice, FinishReason reason);

        /** As {@link #finish(SseStream, int, FinishReason)}, with the stop sequence that ended the choice (or null). */
        default void finish(SseStream sse, int choice, FinishReason reason, String stopSequence) {
            finish(sse, choice, reason);
        }

        /** After every choice finished, before {@code [DONE]}: the usage chunk when it was asked for. */
        void end(SseStream sse, Usage usage);

        /** The stream's last event when a generation fails or the engine refuses more: OpenAI's error body as data. */
        default void failed(SseStream sse, ApiError error) {
            sse.send(error.body());
        }

        /** Whether the stream ends with {@code data: [DONE]} (chat and legacy completions do). */
        default boolean endsWithDone() {
            return true;
        }
    }

    /** The generations of a request, one after the other, with the index its choice 0 has in the response. */
    interface RunSource {
        /** Submits the next generation, or returns null when all are done. */
        MeteredGeneration next();

        int choiceOffset();
    }

    private StreamedRun() {
    }

    private static String requestId(ServerResponse response) {
        String id = response.header(ApiRouter.REQUEST_ID);
        return id == null ? "unknown" : id;
    }

    static void stream(MeteredGeneration run, ServerResponse response, ClientWatch client, Translator translator)
            throws InterruptedException {
        MeteredGeneration[] single = {run};
        stream(new RunSource() {
            @Override
            public MeteredGeneration next() {
                MeteredGeneration r = single[0];
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
     * @param client cancels the generation when the client leaves while nothing is written yet (a
     *               queued request can wait long for its first event)
     */
    static void stream(RunSource runs, ServerResponse response, ClientWatch client, Translator translator)
            throws InterruptedException {
        MeteredGeneration run = runs.next();
        GenerationEvent first = null;
        if (run != null) {
            client.cancelOnDeparture(run.generation());
            try {
                first = run.next();
            } catch (InterruptedException e) {
                run.cancelAndAwait();
                throw e;
            }
            if (first instanceof GenerationEvent.End && client.isGone()) throw new ClientGoneException(null);
        }

        try (SseStream sse = SseStream.open(response)) {
            try {
                translator.start(sse);
                Usage usage = Usage.of(0, 0);
                GenerationEvent event = first;
                while (run != null) {
                    if (event == null) {
                        sse.keepAlive();
                    } else {
                        switch (event) {
                            case GenerationEvent.Text t ->
                                    translator.text(sse, runs.choiceOffset() + t.choice(), t.text(), t.tokens());
                            case GenerationEvent.Finish f ->
                                    translator.finish(sse, runs.choiceOffset() + f.choice(), f.reason(),
                                            f.stopSequence());
                            case GenerationEvent.End e -> {
                                if (client.isGone()) throw new ClientGoneException(null);
                                usage = usage.plus(Usage.of(e.result()));
                                run = runs.next();
                                if (run != null) client.cancelOnDeparture(run.generation());
                            }
                        }
                    }
                    if (run != null) event = run.next(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
                }
                AccessLog.usage(usage);
                // the answer is whole once the final event and [DONE] are out: what must precede it does now
                response.settle();
                translator.end(sse, usage);
                if (translator.endsWithDone()) sse.done();
            } catch (ApiError busy) {
                // from submitting the second prompt of a completions request to a full engine
                translator.failed(sse, busy);
            } catch (GenerationFailedException e) {
                LOG.log(Level.ERROR, "generation failed during a stream", e.getCause());
                translator.failed(sse, ApiError.internal(requestId(response)));
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
