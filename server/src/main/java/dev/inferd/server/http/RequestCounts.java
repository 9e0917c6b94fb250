package dev.inferd.server.http;

/**
 * What a request's handler reported through its {@link RequestHook}: tokens, audio and whether its client left,
 * kept for the hooks that bill or forward them.
 */
public final class RequestCounts {

    /** The counts at one moment. */
    public record Snapshot(int promptTokens, int completionTokens, int cachedTokens, long audioMillis, boolean cancelled) {
    }

    private int promptTokens;
    private int completionTokens;
    private int cachedTokens;
    private long audioMillis;
    private boolean cancelled;

    public synchronized void tokens(int prompt, int completion, int cached) {
        promptTokens += prompt;
        completionTokens += completion;
        cachedTokens += cached;
    }

    public synchronized void audio(long millis) {
        audioMillis += millis;
    }

    public synchronized void cancelled() {
        cancelled = true;
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(promptTokens, completionTokens, cachedTokens, audioMillis, cancelled);
    }
}
