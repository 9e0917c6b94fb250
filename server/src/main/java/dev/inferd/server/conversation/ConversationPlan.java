package dev.inferd.server.conversation;

import dev.inferd.engine.generate.GenerationRequest;

/**
 * A conversation ready to run: the engine's request, and how its output is read back into
 * {@link ConversationEvent}s ({@link #reader(EventSink)}).
 */
public record ConversationPlan(ConversationRequest request, GenerationRequest engineRequest, OutputReading reading) {

    /** A reader for one run of this plan, telling {@code sink} what the engine's output means. */
    public RunReader reader(EventSink sink) {
        return new RunReader(this, sink);
    }
}
