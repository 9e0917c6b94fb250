package dev.inferd.server.http;

import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.conversation.ChoiceOutput;
import dev.inferd.server.conversation.ConversationEvent;
import dev.inferd.server.conversation.ConversationPlan;
import dev.inferd.server.conversation.EventSink;
import dev.inferd.server.conversation.RunReader;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Usage;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a planned conversation for every protocol: streamed, its {@link ConversationEvent}s go to the
 * protocol's {@link Writer} as the engine produces them; whole, they are gathered into one
 * {@link Collected}. Either way a client that leaves cancels the generation.
 */
final class ConversationRun {

    /** A protocol's stream: its opening events, one wire event (or none) per conversation event, its error event. */
    interface Writer {
        /** Before the first conversation event. */
        void start(SseStream sse);

        void event(SseStream sse, ConversationEvent event);

        /** The stream's last event when the generation fails mid-way or the engine refuses it. */
        default void failed(SseStream sse, ApiError error) {
            sse.send(error.body());
        }

        /** Whether the stream ends with {@code data: [DONE]}. */
        default boolean endsWithDone() {
            return true;
        }
    }

    /**
     * A whole run.
     *
     * @param logprobs each choice's tokens' log-probabilities (empty unless asked for)
     */
    record Collected(List<ChoiceOutput> choices, List<List<TokenLogprob>> logprobs, Usage usage) {
    }

    private ConversationRun() {
    }

    static void stream(MeteredGeneration run, ConversationPlan plan, ServerResponse response, ClientWatch client,
                       Writer writer) throws InterruptedException {
        StreamedRun.stream(run, response, client, new StreamedRun.Translator() {
            private RunReader reader;

            @Override
            public void start(SseStream sse) {
                reader = plan.reader(event -> writer.event(sse, event));
                writer.start(sse);
            }

            @Override
            public void text(SseStream sse, int choice, String text, List<TokenLogprob> logprobs) {
                reader.text(choice, text, logprobs);
            }

            @Override
            public void finish(SseStream sse, int choice, FinishReason reason) {
                reader.finish(choice, reason);
            }

            @Override
            public void finish(SseStream sse, int choice, FinishReason reason, String stopSequence) {
                reader.finish(choice, reason, stopSequence);
            }

            @Override
            public void end(SseStream sse, Usage usage) {
                reader.end(usage);
            }

            @Override
            public void failed(SseStream sse, ApiError error) {
                writer.failed(sse, error);
            }

            @Override
            public boolean endsWithDone() {
                return writer.endsWithDone();
            }
        });
    }

    static Collected collect(MeteredGeneration run, ConversationPlan plan, ClientWatch client)
            throws InterruptedException {
        return collect(run, plan, client, event -> {
        });
    }

    /** As {@link #collect(MeteredGeneration, ConversationPlan, ClientWatch)}; {@code events} hears each choice's events, one choice after the other. */
    static Collected collect(MeteredGeneration run, ConversationPlan plan, ClientWatch client, EventSink events)
            throws InterruptedException {
        int n = plan.request().n();
        ChoiceCollector collected = ChoiceCollector.drain(run, n, client);
        ChoiceOutput[] choices = new ChoiceOutput[n];
        RunReader reader = plan.reader(event -> {
            if (event instanceof ConversationEvent.ChoiceFinished f) choices[f.choice()] = f.output();
            events.accept(event);
        });
        List<List<TokenLogprob>> logprobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            reader.text(i, collected.text(i), List.of());
            reader.finish(i, collected.reason(i), collected.stopSequence(i));
            logprobs.add(collected.logprobs(i));
        }
        Usage usage = Usage.of(collected.result());
        AccessLog.usage(usage);
        reader.end(usage);
        return new Collected(List.of(choices), logprobs, usage);
    }
}
