package dev.inferd.engine.batch;

/**
 * An admitted request: its choices' slots. The prompt runs once, in choice 0's slot; when its logits
 * arrive the other choices fork from it (sharing the prompt's blocks).
 */
final class RequestState {
    final ScheduledRequest request;
    final SequenceSlot[] slots;
    final long admittedNanos;
    boolean forked;
    int cachedPromptTokens;

    RequestState(ScheduledRequest request, long admittedNanos) {
        this.request = request;
        this.slots = new SequenceSlot[request.choices()];
        this.admittedNanos = admittedNanos;
    }

    boolean allDone() {
        for (SequenceSlot s : slots) if (s.state != SequenceSlot.State.DONE) return false;
        return true;
    }
}
