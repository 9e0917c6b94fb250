package dev.inferd.server.conversation;

/** Where a run's {@link ConversationEvent}s go: a protocol's stream writer, or a collector for a whole reply. */
@FunctionalInterface
public interface EventSink {
    void accept(ConversationEvent event);
}
