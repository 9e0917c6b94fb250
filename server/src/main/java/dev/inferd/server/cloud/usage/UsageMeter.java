package dev.inferd.server.cloud.usage;

import dev.inferd.server.cloud.auth.Principal;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.store.UsageRecord;

/**
 * One request's meter: collects what its handler reports (model, tokens, final status) and makes its usage
 * record. Reports come from the request's thread and its generation's thread, hence the synchronisation.
 */
public final class UsageMeter implements RequestHook {

    /** The status recorded for a request whose client left before its response was complete (nginx's convention). */
    public static final int CLIENT_CLOSED = 499;

    private final Principal principal;
    private final String endpoint;
    private final long startNanos;
    private final ModelScope scope;
    private String model;
    private int promptTokens;
    private int completionTokens;
    private int cachedTokens;
    private long audioMillis;
    private int status;
    private boolean cancelled;

    /** Checks a model named by the request against the key's scope; throws a 403 to refuse it. */
    @FunctionalInterface
    public interface ModelScope {
        void check(Principal principal, String model);
    }

    public UsageMeter(Principal principal, String endpoint, long startNanos, ModelScope scope) {
        this.principal = principal;
        this.endpoint = endpoint;
        this.startNanos = startNanos;
        this.scope = scope;
    }

    @Override
    public String owner() {
        return principal.account().id();
    }

    @Override
    public synchronized void model(String model) {
        this.model = model;
        scope.check(principal, model);
    }

    @Override
    public synchronized void tokens(int prompt, int completion, int cached) {
        promptTokens += prompt;
        completionTokens += completion;
        cachedTokens += cached;
    }

    @Override
    public synchronized void audio(long millis) {
        audioMillis += millis;
    }

    @Override
    public synchronized void cancelled() {
        cancelled = true;
    }

    @Override
    public synchronized void finished(int status) {
        this.status = status;
    }

    /** The record of this request, ended with {@code fallbackStatus} when no handler reported one. */
    public synchronized UsageRecord record(Pricing pricing, int fallbackStatus, long nowMillis) {
        int finalStatus = status != 0 ? status : fallbackStatus;
        // A stream whose client left has sent its 200 already; the record says it was cut short.
        if (cancelled && finalStatus < 400) finalStatus = CLIENT_CLOSED;
        long latencyMillis = (System.nanoTime() - startNanos) / 1_000_000;
        return new UsageRecord(RowIds.next("use"), principal.account().id(), principal.key().id(), model, endpoint,
                promptTokens, completionTokens, cachedTokens, audioMillis, finalStatus, latencyMillis,
                pricing.cost(model, promptTokens, completionTokens, audioMillis), nowMillis);
    }
}
