package dev.inferd.server.http;

import dev.inferd.engine.generate.BusyException;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.GenerationListener;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.metrics.ModelMeters;
import dev.inferd.server.openai.ApiError;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code generate} call running on its own virtual thread, its callbacks turned into a queue
 * of events that the request's thread reads. The engine thread never touches the socket, so a slow
 * client cannot stall a batch; the request thread owns all writes and tells the engine to stop
 * through {@link #cancel()} when a write fails.
 */
final class GenerationRun implements GenerationListener {

    sealed interface Event permits Text, Finish, Done, Failed {
    }

    record Text(int choice, String text, List<TokenLogprob> logprobs) implements Event {
    }

    record Finish(int choice, FinishReason reason) implements Event {
    }

    /** The last event of a run that returned normally. */
    record Done(GenerationResult result) implements Event {
    }

    /** The last event of a run whose {@code generate} threw. */
    record Failed(Throwable error) implements Event {
    }

    /** How often a request waiting for its first event checks that its client is still there. */
    private static final long CLIENT_CHECK_MILLIS = 100;

    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final ModelMeters meters;
    private final long startNanos = System.nanoTime();
    private volatile boolean cancelled;
    private boolean sawText;

    private GenerationRun(ModelMeters meters) {
        this.meters = meters;
    }

    static GenerationRun start(TextGenerator generator, GenerationRequest request, ModelMeters meters) {
        GenerationRun run = new GenerationRun(meters);
        Thread.ofVirtual().name("inferd-generate").start(() -> {
            Event last;
            try {
                GenerationResult result = generator.generate(request, run);
                meters.finished(result, System.nanoTime() - run.startNanos);
                last = new Done(result);
            } catch (Throwable t) {
                last = new Failed(t);
            }
            run.events.add(last);
        });
        return run;
    }

    /**
     * What a failed run means for its request: an engine that is too busy is a 429 the client may
     * retry; anything else is a server fault.
     */
    static RuntimeException failure(Throwable error) {
        if (error instanceof BusyException busy) {
            return ApiError.busy("The engine is busy: " + busy.getMessage() + ". Please retry shortly.",
                    busy.retryAfterSeconds());
        }
        return new GenerationFailedException(error);
    }

    /**
     * The next event, waiting as long as it takes while nothing is being sent to the client, and
     * watching that client meanwhile: if it leaves, the engine is stopped and
     * {@link ClientGoneException} thrown.
     */
    Event takeWatching(ClientWatch client) throws InterruptedException {
        while (true) {
            // Checked before every event too: a busy generation has events all the time.
            boolean gone;
            try {
                gone = client.isGone();
            } catch (ClientGoneException e) {
                // the watch's probe could not write
                cancelAndAwait();
                throw e;
            }
            if (gone) {
                cancelAndAwait();
                throw new ClientGoneException(null);
            }
            Event event = events.poll(CLIENT_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            if (event != null) return event;
        }
    }

    /** The next event, waiting as long as it takes. */
    Event take() throws InterruptedException {
        return events.take();
    }

    /** The next event, or null when none came within the timeout. */
    Event poll(long timeout, TimeUnit unit) throws InterruptedException {
        return events.poll(timeout, unit);
    }

    /** Asks the engine to stop and waits until its {@code generate} has returned. */
    void cancelAndAwait() {
        cancel();
        boolean interrupted = false;
        while (true) {
            try {
                Event e = events.take();
                if (e instanceof Done || e instanceof Failed) break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    void cancel() {
        cancelled = true;
    }

    @Override
    public void onText(int choice, String text, List<TokenLogprob> logprobs) {
        // Listener calls come from the one engine thread of this run, so no synchronisation.
        if (!sawText && !text.isEmpty()) {
            sawText = true;
            meters.firstToken(System.nanoTime() - startNanos);
        }
        events.add(new Text(choice, text, logprobs == null ? List.of() : List.copyOf(logprobs)));
    }

    @Override
    public void onFinish(int choice, FinishReason reason) {
        events.add(new Finish(choice, reason));
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }
}
