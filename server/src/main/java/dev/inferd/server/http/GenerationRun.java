package dev.inferd.server.http;

import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.GenerationListener;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;

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

    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private volatile boolean cancelled;

    private GenerationRun() {
    }

    static GenerationRun start(TextGenerator generator, GenerationRequest request) {
        GenerationRun run = new GenerationRun();
        Thread.ofVirtual().name("inferd-generate").start(() -> {
            Event last;
            try {
                last = new Done(generator.generate(request, run));
            } catch (Throwable t) {
                last = new Failed(t);
            }
            run.events.add(last);
        });
        return run;
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
